//! Readable contrast: the theme's text colours against the backgrounds they are drawn on meet WCAG 2 AA (4.5:1
//! for normal text). Reads the custom properties of `:root` in `static/style.css`, so a colour change that breaks
//! readability fails here.

fn theme() -> std::collections::HashMap<String, String> {
    let css = include_str!("../static/style.css");
    let root = &css[css.find(":root").expect(":root")..];
    let root = &root[..root.find('}').expect("end of :root")];
    root.lines()
        .filter_map(|l| l.trim().strip_prefix("--"))
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| {
            (
                k.trim().to_string(),
                v.trim().trim_end_matches(';').trim().to_string(),
            )
        })
        .collect()
}

fn luminance(hex: &str) -> f64 {
    let hex = hex.trim_start_matches('#');
    assert_eq!(hex.len(), 6, "a #rrggbb colour: {hex}");
    let channel = |i: usize| {
        let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).unwrap()) / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
}

fn contrast(a: &str, b: &str) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

#[test]
fn text_colours_are_readable_on_their_backgrounds() {
    let t = theme();
    let pairs = [
        ("ink", "paper"),
        ("ink", "panel"),
        ("ink", "card"),
        ("ink", "info-bg"),
        ("ink", "danger-bg"),
        ("muted", "paper"),
        ("muted", "panel"),
        ("muted", "card"),
        ("primary-ink", "primary"),
        ("warn", "paper"),
        ("focus", "paper"),
        ("danger-line", "danger-bg"),
        ("move", "card"),
        ("choose", "card"),
        ("mouse", "card"),
    ];
    for (fg, bg) in pairs {
        let (f, b) = (&t[fg], &t[bg]);
        let ratio = contrast(f, b);
        assert!(
            ratio >= 4.5,
            "--{fg} {f} on --{bg} {b}: contrast {ratio:.2} is below 4.5"
        );
    }
}

#[test]
fn the_check_would_catch_a_pale_colour() {
    assert!(contrast("#999999", "#f6f1e7") < 4.5);
    assert!((contrast("#000000", "#ffffff") - 21.0).abs() < 0.01);
}

/// The keyboard focus ring (issue 26): a near-black ring between two bands of a light colour. On every surface it
/// is drawn on, the ring or its bands stand out (WCAG 2.2's 3:1 for focus indicators), and the bands differ from
/// every legal-move highlight colour, so a focused card never looks merely playable. The global `:focus-visible`
/// rule uses them.
#[test]
fn the_focus_ring_is_visible_and_unlike_the_move_highlights() {
    let t = theme();
    let (ring, halo) = (&t["focus-ring"], &t["focus-halo"]);
    for surface in ["paper", "panel", "card", "info-bg", "back", "primary"] {
        let on = &t[surface];
        let best = contrast(ring, on).max(contrast(halo, on));
        assert!(
            best >= 3.0,
            "the focus ring ({ring} within {halo}) on --{surface} {on}: contrast {best:.2} is below 3"
        );
    }
    assert!(
        contrast(ring, halo) >= 3.0,
        "the ring {ring} against its own bands {halo}"
    );
    for highlight in ["move", "choose", "mouse", "primary", "focus"] {
        let colour = &t[highlight];
        let ratio = contrast(halo, colour);
        assert!(
            ratio >= 3.0,
            "the focus bands {halo} look like the --{highlight} highlight {colour}: contrast {ratio:.2}"
        );
    }
    let css = include_str!("../static/style.css");
    let rule = css
        .lines()
        .find(|l| l.starts_with(":focus-visible"))
        .expect("a global :focus-visible rule");
    assert!(
        rule.contains("var(--focus-ring)") && rule.contains("var(--focus-halo)"),
        "the global focus rule draws the ring and its bands: {rule}"
    );
}

/// The value of `property` in the first rule of `static/style.css` whose selector list is exactly `selector`.
fn rule_value(selector: &str, property: &str) -> String {
    let css = include_str!("../static/style.css");
    let at = css
        .find(&format!("{selector} {{"))
        .unwrap_or_else(|| panic!("no rule {selector} in style.css"));
    let body = &css[at + selector.len() + 2..];
    let body = &body[..body.find('}').expect("end of rule")];
    body.split(';')
        .filter_map(|d| d.split_once(':'))
        .find(|(k, _)| k.trim() == property)
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_else(|| panic!("{selector} has no {property}"))
}

/// The boards of Quacks and Hickory Dickory carry text: chip values on the chips' colours, the ingredient books'
/// names, the pot's coin and point numbers on its spaces, the clock's numbers, tokens and time.
#[test]
fn board_text_is_readable_on_quacks_and_hickory_boards() {
    let mut pairs = Vec::new();
    for colour in [
        "white", "orange", "green", "blue", "red", "yellow", "purple", "black",
    ] {
        pairs.push((
            format!("chip value on {colour}"),
            rule_value(&format!(".chip-{colour} .q-chip-value"), "fill"),
            rule_value(&format!(".chip-{colour} .q-chip-disc"), "fill"),
        ));
        pairs.push((
            format!("{colour} book"),
            rule_value(&format!(".book.chip-{colour}"), "color"),
            rule_value(&format!(".book.chip-{colour}"), "background"),
        ));
    }
    let spaces = [
        rule_value(".q-space-disc", "fill"),
        rule_value(".q-space.ruby .q-space-disc", "fill"),
        rule_value(".q-space.scoring .q-space-disc", "fill"),
    ];
    for space in &spaces {
        pairs.push(("coins".into(), rule_value(".q-coins", "fill"), space.clone()));
        pairs.push(("points".into(), rule_value(".q-points", "fill"), space.clone()));
    }
    pairs.push((
        "clock time".into(),
        rule_value(".hd-time", "color"),
        rule_value(".hd-ring.inner", "fill"),
    ));
    for face in ["#fffaf0", "#fff1b8", "#e5ddd0"] {
        pairs.push(("clock number".into(), "#1b1b1b".into(), face.into()));
        assert!(
            include_str!("../static/style.css").contains(face),
            "the clock's space colour {face} is in style.css"
        );
    }
    // "#111" is "#111111".
    let full = |hex: &str| {
        let h = hex.trim_start_matches('#');
        if h.len() == 3 {
            h.chars().flat_map(|c| [c, c]).collect::<String>()
        } else {
            h.to_string()
        }
    };
    for (what, fg, bg) in pairs {
        let (fg, bg) = (full(&fg), full(&bg));
        let ratio = contrast(&fg, &bg);
        assert!(
            ratio >= 4.5,
            "{what}: {fg} on {bg}: contrast {ratio:.2} is below 4.5"
        );
    }
}

/// The seat colours of `static/js/ui.js` (`SEAT_COLOURS`).
fn seat_colours() -> Vec<String> {
    let js = include_str!("../static/js/ui.js");
    let start = js.find("SEAT_COLOURS = [").expect("SEAT_COLOURS in ui.js");
    let list = &js[start..];
    let list = &list[list.find('[').unwrap() + 1..list.find(']').unwrap()];
    list.split(',')
        .map(|c| c.trim().trim_matches('"').to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

/// The Molehills field writes each piece's seat number on the piece, in black or white, whichever reads better
/// (`inkOn` in `static/js/games/molehills.js`): for every seat colour that choice meets AA.
#[test]
fn seat_numbers_on_molehill_pieces_are_readable() {
    let colours = seat_colours();
    assert_eq!(colours.len(), 8, "eight seat colours: {colours:?}");
    for c in &colours {
        let best = contrast(c, "#111111").max(contrast(c, "#ffffff"));
        assert!(best >= 4.5, "seat colour {c}: its number reads at only {best:.2}");
    }
}

/// Text drawn on the Hide and Eeek!, Molehills and New Year boards: the category die's faces, the popovers of named
/// things, the "belongs at" tags on picture cards, the height badges of mountains.
#[test]
fn board_texts_are_readable() {
    let pairs = [
        ("#7a3e00", "#fff4d6"), // odd / even on the category die
        ("#ffffff", "#1b1b1b"), // popovers; the New Year "→ C3" tags
        ("#111111", "#ffffff"), // a mountain's height badge
        ("#1b1b1b", "#fffdf7"), // pips on the movement die
    ];
    for (fg, bg) in pairs {
        let ratio = contrast(fg, bg);
        assert!(ratio >= 4.5, "{fg} on {bg}: contrast {ratio:.2} is below 4.5");
    }
}
