//! Text a stranger types that other people see: display names (`create_lobby`, `join_lobby`) and chat messages.
//! Every such text passes [`check_name`] or [`check_chat`], here and nowhere else, before the server keeps it.
//!
//! A text is normalised to NFC (so that "é" typed as `e` + U+0301 and as U+00E9 is the same name) and trimmed of
//! white space at both ends; then it is kept as it is or refused as a whole, never silently changed further: the
//! server keeps exactly what it shows, and a refusal (`bad_name`, `bad_chat`) names the code point that was wrong.
//! Refused anywhere in a text:
//! - bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), which could turn the
//!   text around it on other people's screens;
//! - control characters (Cc: line feed, tab, NUL...) and the line and paragraph separators U+2028 and U+2029:
//!   names and chat messages are one line;
//! - invisible characters: format characters (Cf: zero-width space U+200B, the byte order mark U+FEFF, soft
//!   hyphen, word joiner, invisible operators, tags...) and the other default-ignorable code points (Unicode's
//!   `Default_Ignorable_Code_Point`: the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the combining grapheme
//!   joiner U+034F, Khmer U+17B4/U+17B5), except in the places where they carry meaning:
//!   - the joiners U+200C (ZWNJ) and U+200D (ZWJ) between two visible characters (emoji ZWJ sequences such as a
//!     family, Persian words, Indic conjuncts), not at either end and never two in a row;
//!   - variation selectors (U+FE00 to U+FE0F, U+E0100 to U+E01EF, the Mongolian U+180B to U+180D and U+180F)
//!     right after a visible character (the emoji presentation selector U+FE0F of a red heart or the rainbow flag);
//!   - tag characters U+E0020 to U+E007E closed by U+E007F right after U+1F3F4 (the subdivision flags such as
//!     Scotland's);
//! - private-use (Co) and unassigned code points (Cn, noncharacters included);
//! - more than [`COMBINING_MARKS_MAX`] non-spacing or enclosing marks (Mn, Me) on one character, and a text that
//!   starts with a combining mark (it would sit on whatever is shown before it).
//!
//! A name must also have a visible character: a letter, number, punctuation or symbol other than the braille blank
//! U+2800. Lengths are counted in characters (code points) after NFC and trimming.
//!
//! Tables: NFC from `unicode-normalization`, general categories and emoji properties from `unicode-properties`
//! (both of the unicode-rs project, Unicode 18, and already built for the PostgreSQL driver's SASLprep).
//! `Default_Ignorable_Code_Point` has no public table in those crates: the few default-ignorable code points that
//! are not format, unassigned or variation selectors are listed in [`IGNORABLE_OUTSIDE_CF`].

use protocol::{CHAT_MAX_CHARS, COMBINING_MARKS_MAX, ErrorBody, ErrorCode, NAME_MAX_CHARS};
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

/// Checks a display name: the NFC form, trimmed, of 1 to [`NAME_MAX_CHARS`] characters with a visible one (see
/// the module's rules). Refused with `bad_name`, saying what is wrong.
pub fn check_name(name: &str) -> Result<String, ErrorBody> {
    check(name, NAME_MAX_CHARS, true).map_err(|problem| {
        ErrorBody::new(
            ErrorCode::BadName,
            format!("a name {}", problem.describe(NAME_MAX_CHARS)),
        )
    })
}

/// Checks a chat message: the NFC form, trimmed, of 1 to [`CHAT_MAX_CHARS`] characters (see the module's rules).
/// Refused with `bad_chat`, saying what is wrong.
pub fn check_chat(text: &str) -> Result<String, ErrorBody> {
    check(text, CHAT_MAX_CHARS, false).map_err(|problem| {
        ErrorBody::new(
            ErrorCode::BadChat,
            format!("a chat message {}", problem.describe(CHAT_MAX_CHARS)),
        )
    })
}

/// What is wrong with a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Problem {
    Empty,
    TooLong,
    Bidi(char),
    Control(char),
    LineBreak(char),
    Invisible(char),
    LoneJoiner(char),
    LoneSelector(char),
    LoneTag(char),
    PrivateUse(char),
    Unassigned(char),
    LeadingMark(char),
    TooManyMarks,
    NothingVisible,
}

impl Problem {
    /// The rest of the sentence "a name ..." / "a chat message ...".
    fn describe(self, max_chars: usize) -> String {
        let u = |c: char| format!("U+{:04X}", c as u32);
        match self {
            Problem::Empty => "cannot be empty".into(),
            Problem::TooLong => format!("has at most {max_chars} characters"),
            Problem::Bidi(c) => format!("cannot contain the bidirectional control {}", u(c)),
            Problem::Control(c) => format!("cannot contain the control character {}", u(c)),
            Problem::LineBreak(c) => format!(
                "is one line: it cannot contain the line or paragraph separator {}",
                u(c)
            ),
            Problem::Invisible(c) => format!("cannot contain the invisible character {}", u(c)),
            Problem::LoneJoiner(c) => format!(
                "may contain the joiner {} only between two visible characters",
                u(c)
            ),
            Problem::LoneSelector(c) => {
                format!(
                    "may contain the variation selector {} only right after a visible character",
                    u(c)
                )
            }
            Problem::LoneTag(c) => format!(
                "may contain the tag character {} only in a flag (after U+1F3F4)",
                u(c)
            ),
            Problem::PrivateUse(c) => format!("cannot contain the private-use character {}", u(c)),
            Problem::Unassigned(c) => format!("cannot contain {}, which Unicode does not assign", u(c)),
            Problem::LeadingMark(c) => format!("cannot start with the combining mark {}", u(c)),
            Problem::TooManyMarks => {
                format!("has at most {COMBINING_MARKS_MAX} combining marks on one character")
            }
            Problem::NothingVisible => {
                "needs a visible character (a letter, number, punctuation or symbol)".into()
            }
        }
    }
}

/// The bidirectional controls: the Arabic letter mark, the left-to-right and right-to-left marks, embeddings,
/// overrides and their pop, isolates and their pop.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The default-ignorable code points that are not format characters (Cf), unassigned (Cn) or variation
/// selectors: from Unicode's DerivedCoreProperties.txt (`Default_Ignorable_Code_Point`), which has not changed
/// for these since Unicode 6.
const IGNORABLE_OUTSIDE_CF: &[(char, char)] = &[
    ('\u{034F}', '\u{034F}'), // combining grapheme joiner
    ('\u{115F}', '\u{1160}'), // Hangul choseong and jungseong fillers
    ('\u{17B4}', '\u{17B5}'), // Khmer inherent vowels
    ('\u{3164}', '\u{3164}'), // Hangul filler
    ('\u{FFA0}', '\u{FFA0}'), // halfwidth Hangul filler
];

fn is_variation_selector(c: char) -> bool {
    matches!(
        c,
        '\u{180B}'..='\u{180D}' | '\u{180F}' | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}'
    )
}

fn is_joiner(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}')
}

/// A character shown on its own: a letter, mark, number, punctuation or symbol, not default-ignorable.
fn is_graphic(c: char) -> bool {
    let visible_group = matches!(
        c.general_category_group(),
        GeneralCategoryGroup::Letter
            | GeneralCategoryGroup::Mark
            | GeneralCategoryGroup::Number
            | GeneralCategoryGroup::Punctuation
            | GeneralCategoryGroup::Symbol
    );
    visible_group
        && !is_variation_selector(c)
        && !IGNORABLE_OUTSIDE_CF.iter().any(|&(a, b)| (a..=b).contains(&c))
}

/// A character that makes a name visible: graphic and not a mark, nor the braille blank (which looks like a
/// space).
fn is_visible(c: char) -> bool {
    is_graphic(c) && c.general_category_group() != GeneralCategoryGroup::Mark && c != '\u{2800}'
}

fn is_counted_mark(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark
    )
}

/// The NFC form of `text`, trimmed, if it keeps the rules; `needs_visible` for names.
fn check(text: &str, max_chars: usize, needs_visible: bool) -> Result<String, Problem> {
    let normal: String = text.nfc().collect();
    let text = normal.trim();
    if text.is_empty() {
        return Err(Problem::Empty);
    }
    if text.chars().count() > max_chars {
        return Err(Problem::TooLong);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut marks = 0;
    // Inside a tag sequence after U+1F3F4 (the subdivision flags).
    let mut in_tags = false;
    for (i, &c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1).copied();
        if in_tags {
            match c {
                '\u{E0020}'..='\u{E007E}' => continue,
                '\u{E007F}' => {
                    in_tags = false;
                    continue;
                }
                _ => return Err(Problem::LoneTag(before.unwrap_or(c))),
            }
        }
        if is_bidi_control(c) {
            return Err(Problem::Bidi(c));
        }
        let category = c.general_category();
        match category {
            GeneralCategory::Control => return Err(Problem::Control(c)),
            GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator => {
                return Err(Problem::LineBreak(c));
            }
            GeneralCategory::PrivateUse => return Err(Problem::PrivateUse(c)),
            GeneralCategory::Unassigned | GeneralCategory::Surrogate => return Err(Problem::Unassigned(c)),
            _ => {}
        }
        if is_joiner(c) {
            if before.is_some_and(|b| is_graphic(b) || is_variation_selector(b))
                && after.is_some_and(is_graphic)
            {
                continue;
            }
            return Err(Problem::LoneJoiner(c));
        }
        if is_variation_selector(c) {
            // After a visible character (possibly with its marks), not after another selector.
            if before.is_some_and(is_graphic) {
                marks += 1;
                if marks > COMBINING_MARKS_MAX {
                    return Err(Problem::TooManyMarks);
                }
                continue;
            }
            return Err(Problem::LoneSelector(c));
        }
        if c == '\u{E007F}' || ('\u{E0020}'..='\u{E007E}').contains(&c) {
            if c != '\u{E007F}' && before == Some('\u{1F3F4}') {
                in_tags = true;
                continue;
            }
            return Err(Problem::LoneTag(c));
        }
        if category == GeneralCategory::Format
            || IGNORABLE_OUTSIDE_CF.iter().any(|&(a, b)| (a..=b).contains(&c))
        {
            return Err(Problem::Invisible(c));
        }
        let is_mark = c.general_category_group() == GeneralCategoryGroup::Mark;
        if is_mark && i == 0 {
            return Err(Problem::LeadingMark(c));
        }
        if is_counted_mark(c) {
            marks += 1;
            if marks > COMBINING_MARKS_MAX {
                return Err(Problem::TooManyMarks);
            }
        } else if !is_mark {
            // A spacing mark (Mc) takes room of its own and neither counts nor starts a new character.
            marks = 0;
        }
    }
    if in_tags {
        return Err(Problem::LoneTag(*chars.last().expect("not empty")));
    }
    if needs_visible && !chars.iter().any(|&c| is_visible(c)) {
        return Err(Problem::NothingVisible);
    }
    Ok(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_problem(name: &str) -> Problem {
        check(name, NAME_MAX_CHARS, true).expect_err(name)
    }

    fn chat_problem(text: &str) -> Problem {
        check(text, CHAT_MAX_CHARS, false).expect_err(text)
    }

    #[test]
    fn bidi_controls_are_refused_and_named() {
        for c in [
            '\u{202E}', '\u{202A}', '\u{202D}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{200E}',
            '\u{200F}', '\u{061C}',
        ] {
            let name = format!("ann{c}gpj.exe");
            assert_eq!(name_problem(&name), Problem::Bidi(c), "{c:?}");
            assert_eq!(chat_problem(&format!("hi {c}there")), Problem::Bidi(c), "{c:?}");
        }
        // An isolate pair around a word (LRI ... PDI) is refused at its first control.
        assert_eq!(name_problem("\u{2066}Ann\u{2069}"), Problem::Bidi('\u{2066}'));
        let refused = check_name("evil\u{202E}txt.exe").unwrap_err();
        assert_eq!(refused.code, ErrorCode::BadName);
        assert_eq!(
            refused.message,
            "a name cannot contain the bidirectional control U+202E"
        );
        let refused = check_chat("\u{202E}olleh").unwrap_err();
        assert_eq!(refused.code, ErrorCode::BadChat);
        assert!(refused.message.contains("U+202E"), "{}", refused.message);
    }

    #[test]
    fn invisible_names_are_refused() {
        // Only zero-width spaces, or only Hangul fillers: nothing to see.
        assert_eq!(
            name_problem("\u{200B}\u{200B}\u{200B}"),
            Problem::Invisible('\u{200B}')
        );
        assert_eq!(name_problem("\u{3164}"), Problem::Invisible('\u{3164}'));
        assert_eq!(
            name_problem("\u{3164}\u{3164}\u{3164}"),
            Problem::Invisible('\u{3164}')
        );
        assert_eq!(name_problem("\u{115F}\u{1160}"), Problem::Invisible('\u{115F}'));
        assert_eq!(name_problem("\u{FFA0}"), Problem::Invisible('\u{FFA0}'));
        // A zero-width space inside a name makes a look-alike of another: refused too.
        assert_eq!(name_problem("An\u{200B}n"), Problem::Invisible('\u{200B}'));
        assert_eq!(name_problem("Ann\u{2060}"), Problem::Invisible('\u{2060}'));
        assert_eq!(name_problem("So\u{00AD}phie"), Problem::Invisible('\u{00AD}'));
        assert_eq!(name_problem("A\u{034F}nn"), Problem::Invisible('\u{034F}'));
        // The braille blank is a symbol, but shows nothing.
        assert_eq!(name_problem("\u{2800}\u{2800}"), Problem::NothingVisible);
        // Spaces are trimmed; only spaces leave nothing.
        assert_eq!(name_problem("   "), Problem::Empty);
        assert_eq!(name_problem("\u{3000}\u{00A0}"), Problem::Empty);
        assert_eq!(check_name("\u{3164}").unwrap_err().code, ErrorCode::BadName);
        // In chat, the same characters are refused.
        assert_eq!(chat_problem("\u{3164}"), Problem::Invisible('\u{3164}'));
        assert_eq!(chat_problem("a\u{200B}b"), Problem::Invisible('\u{200B}'));
    }

    #[test]
    fn byte_order_marks_are_refused() {
        assert_eq!(name_problem("\u{FEFF}Ann"), Problem::Invisible('\u{FEFF}'));
        assert_eq!(name_problem("Ann\u{FEFF}"), Problem::Invisible('\u{FEFF}'));
        assert_eq!(chat_problem("\u{FEFF}hi"), Problem::Invisible('\u{FEFF}'));
    }

    #[test]
    fn texts_are_one_line() {
        for c in ['\u{2028}', '\u{2029}'] {
            assert_eq!(name_problem(&format!("a{c}b")), Problem::LineBreak(c));
            assert_eq!(chat_problem(&format!("a{c}b")), Problem::LineBreak(c));
            // Alone, a separator is white space and is trimmed away.
            assert_eq!(name_problem(&c.to_string()), Problem::Empty);
        }
        assert_eq!(chat_problem("line\nbreak"), Problem::Control('\n'));
        assert_eq!(name_problem("a\u{7}b"), Problem::Control('\u{7}'));
        assert_eq!(name_problem("a\u{85}b"), Problem::Control('\u{85}'));
        assert_eq!(chat_problem("tab\there"), Problem::Control('\t'));
    }

    #[test]
    fn combining_marks_are_capped() {
        let zalgo = format!(
            "a{}",
            "\u{0301}\u{0316}\u{0330}"
                .repeat(11)
                .chars()
                .take(31)
                .collect::<String>()
        );
        assert_eq!(zalgo.chars().count(), 32);
        assert_eq!(name_problem(&zalgo), Problem::TooManyMarks);
        assert_eq!(chat_problem(&zalgo), Problem::TooManyMarks);
        // The same mark 31 times (it does not compose).
        assert_eq!(
            name_problem(&format!("x{}", "\u{0336}".repeat(31))),
            Problem::TooManyMarks
        );
        let at_most = format!("x{}", "\u{0316}".repeat(COMBINING_MARKS_MAX));
        assert_eq!(check_name(&at_most).unwrap(), at_most);
        let over = format!("x{}", "\u{0316}".repeat(COMBINING_MARKS_MAX + 1));
        assert_eq!(name_problem(&over), Problem::TooManyMarks);
        // The count starts again at each character.
        let spread = "x\u{0316}\u{0316}\u{0316}y\u{0316}\u{0316}\u{0316}";
        assert_eq!(check_name(spread).unwrap(), spread);
        // A mark cannot start a text.
        assert_eq!(name_problem("\u{0301}Ann"), Problem::LeadingMark('\u{0301}'));
        assert_eq!(chat_problem(" \u{0301}hi"), Problem::LeadingMark('\u{0301}'));
        assert!(check_name(&over).unwrap_err().message.contains("combining marks"));
    }

    #[test]
    fn nfd_input_is_kept_as_nfc() {
        assert_eq!(check_name("Jose\u{0301}").unwrap(), "José");
        assert_eq!(check_name("Zoe\u{0308}").unwrap(), "Zoë");
        assert_eq!(check_chat("cafe\u{0301} au lait").unwrap(), "café au lait");
        // Hangul typed as jamo is kept as syllables.
        assert_eq!(check_name("\u{1112}\u{1161}\u{11AB}").unwrap(), "한");
        // Vietnamese with two marks on one letter, in any order NFC sorts.
        assert_eq!(check_name("Nguye\u{0302}\u{0303}n").unwrap(), "Nguyễn");
        // Length counts after NFC: 32 decomposed letters are 64 code points but 32 characters.
        let long = "e\u{0301}".repeat(NAME_MAX_CHARS);
        assert_eq!(check_name(&long).unwrap().chars().count(), NAME_MAX_CHARS);
        let too_long = "e\u{0301}".repeat(NAME_MAX_CHARS + 1);
        assert_eq!(name_problem(&too_long), Problem::TooLong);
    }

    #[test]
    fn names_in_many_scripts_are_kept() {
        for name in [
            "José",
            "Zoë",
            "李小龙",
            "Ελένη",
            "محمد",
            "فاطمة الزهراء",
            "אביגיל",
            "प्रियंका", // Hindi: virama, vowel signs, anusvara
            "क्षत्रिय",
            "स्त्री",
            "Nguyễn Thị Minh Khai",
            "Ђорђе",
            "தமிழ்ச்செல்வி",
            "สมศักดิ์",           // Thai: vowel and tone marks on one consonant
            "བསྒྲུབ",             // Tibetan: a stack of subjoined letters
            "ကြွေး",            // Myanmar: spacing and non-spacing marks in a row
            "ශ්\u{200D}රී",      // Sinhala: a ZWJ after the virama
            "می\u{200C}خواهم", // Persian: a ZWNJ inside the word
            "O'Brien-Smith Jr.",
            "山田 太郎",
            "x_X 1337",
            "⠁⠃⠉", // braille letters are visible
            "ÅNGSTRÖM",
        ] {
            assert_eq!(
                check_name(name).map_err(|e| e.message),
                Ok(name.to_string()),
                "{name}"
            );
        }
    }

    #[test]
    fn emoji_are_kept() {
        for text in [
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}", // a family: four emoji joined by ZWJ
            "🇯🇵",                                                           // a flag: two regional indicators
            "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",                           // the rainbow flag: VS16 then ZWJ
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", // Scotland: tag characters after U+1F3F4
            "❤\u{FE0F}", // VS16 after a text-default symbol
            "1\u{FE0F}⃣", // a keycap: VS16 and an enclosing mark
            "👍🏽",        // a skin tone modifier
            "\u{1F9D1}\u{1F3FD}\u{200D}\u{1F680} Ann",
        ] {
            assert_eq!(
                check_name(text).map_err(|e| e.message),
                Ok(text.to_string()),
                "{text:?}"
            );
            assert_eq!(
                check_chat(text).map_err(|e| e.message),
                Ok(text.to_string()),
                "{text:?}"
            );
        }
    }

    #[test]
    fn joiners_selectors_and_tags_only_where_they_mean_something() {
        assert_eq!(name_problem("\u{200D}"), Problem::LoneJoiner('\u{200D}'));
        assert_eq!(name_problem("\u{200D}Ann"), Problem::LoneJoiner('\u{200D}'));
        assert_eq!(name_problem("Ann\u{200D}"), Problem::LoneJoiner('\u{200D}'));
        assert_eq!(
            name_problem("A\u{200D}\u{200D}B"),
            Problem::LoneJoiner('\u{200D}')
        );
        assert_eq!(name_problem("A \u{200C}B"), Problem::LoneJoiner('\u{200C}'));
        assert_eq!(name_problem("\u{FE0F}Ann"), Problem::LoneSelector('\u{FE0F}'));
        assert_eq!(
            name_problem("A\u{FE0F}\u{FE0F}"),
            Problem::LoneSelector('\u{FE0F}')
        );
        assert_eq!(name_problem("A \u{FE0F}"), Problem::LoneSelector('\u{FE0F}'));
        // Tags outside a flag (an invisible message hidden in a name), or a flag left open.
        assert_eq!(
            name_problem("Ann\u{E0068}\u{E0069}"),
            Problem::LoneTag('\u{E0068}')
        );
        assert_eq!(
            name_problem("\u{1F3F4}\u{E0067}\u{E0062}"),
            Problem::LoneTag('\u{E0062}')
        );
        assert_eq!(name_problem("\u{1F3F4}\u{E007F}"), Problem::LoneTag('\u{E007F}'));
        assert_eq!(name_problem("\u{1F3F4}\u{E0067}x"), Problem::LoneTag('\u{E0067}'));
    }

    #[test]
    fn private_use_and_unassigned_are_refused() {
        assert_eq!(name_problem("Ann\u{E000}"), Problem::PrivateUse('\u{E000}'));
        assert_eq!(name_problem("Ann\u{F8FF}"), Problem::PrivateUse('\u{F8FF}'));
        assert_eq!(name_problem("Ann\u{FFFF}"), Problem::Unassigned('\u{FFFF}'));
        assert_eq!(chat_problem("a\u{10FFFE}"), Problem::Unassigned('\u{10FFFE}'));
    }

    #[test]
    fn lengths_and_markup() {
        assert_eq!(
            check_name(&"n".repeat(NAME_MAX_CHARS)).unwrap().len(),
            NAME_MAX_CHARS
        );
        assert_eq!(name_problem(&"n".repeat(NAME_MAX_CHARS + 1)), Problem::TooLong);
        assert_eq!(
            check_chat(&"é".repeat(CHAT_MAX_CHARS)).unwrap().chars().count(),
            CHAT_MAX_CHARS
        );
        assert_eq!(chat_problem(&"x".repeat(CHAT_MAX_CHARS + 1)), Problem::TooLong);
        assert_eq!(check_name("  Ann  ").unwrap(), "Ann");
        // Markup is plain text: the client shows it as text.
        assert_eq!(check_chat("<b>not bold</b>").unwrap(), "<b>not bold</b>");
        assert_eq!(check_name("<img src=x>").unwrap(), "<img src=x>");
    }
}
