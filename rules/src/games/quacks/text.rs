//! The JSON text the server writes after every action, written by hand straight from the state and without
//! serde: each viewer's view (`Game::view_text`, without building a [`QuacksView`]), each seat's legal actions
//! (`Game::legal_actions_text`), the action as the log keeps it (`Game::action_text`) and each event
//! (`Game::event_text`). Serde's derived serialisation escapes every key and every enum name as it writes it and
//! goes through its map serialiser for the tagged enums; the view (hundreds of chips, each an object of escaped
//! keys) was most of the cost of an action, and the legal actions, action and events were another ~10,000
//! instructions per action at 4 seats (engines bench, `server` path, callgrind: 109,154 -> 99,150; 3 seats
//! 79,923 -> 71,484; 2 seats 56,196 -> 49,045).
//!
//! Every text must be exactly serde's text of the typed value: compact, members in declaration order, the same
//! tags and `snake_case` names. The registry's `json_text_is_the_same_value_as_the_value_path` compares all four
//! through whole random games for every seat and viewer, and this game's `the_view_text_is_serdes_text_of_the_view`
//! and `texts_are_serdes_text` compare the view, and every action and event variant and the legal actions of
//! whole games; a member added to one of these types must be added here too. The purchases, the longest lists,
//! are written as [`Quacks::each_buy_option`] finds them, without a typed list; the other lists from the typed
//! actions. Small or rarely present members of the view (the card, a pending decision, a commitment, the outcome)
//! go through serde.

use super::*;
use crate::json_text::{
    push_array, push_bool, push_name, push_number, push_seat, push_serde, push_small, push_viewer,
};

/// A colour by its serde name (`rename_all = "snake_case"`).
pub(super) fn colour_name(colour: Colour) -> &'static str {
    match colour {
        Colour::White => "white",
        Colour::Orange => "orange",
        Colour::Green => "green",
        Colour::Blue => "blue",
        Colour::Red => "red",
        Colour::Yellow => "yellow",
        Colour::Purple => "purple",
        Colour::Black => "black",
    }
}

/// A brewing state by its serde name.
pub(super) fn brew_name(brew: Brew) -> &'static str {
    match brew {
        Brew::Brewing => "brewing",
        Brew::Stopped => "stopped",
        Brew::Exploded => "exploded",
    }
}

/// An evaluation step by its serde name.
pub(super) fn shop_name(shop: Shop) -> &'static str {
    match shop {
        Shop::Idle => "idle",
        Shop::PointsOrBuying => "points_or_buying",
        Shop::Buying => "buying",
        Shop::Spending => "spending",
        Shop::Done => "done",
    }
}

/// The text of a chip, `{"colour":"white","value":1}`, between `$pre` and `$post`, for every colour (by
/// `Colour as usize`, its declaration order) and the values 0-4 (every chip in the box is worth 1 to 4): written
/// at compile time, so that a chip costs one copy instead of five pieces.
macro_rules! chip_texts {
    ($pre:literal, $post:literal) => {
        chip_texts!($pre, $post; "white", "orange", "green", "blue", "red", "yellow", "purple", "black")
    };
    ($pre:literal, $post:literal; $($colour:literal),*) => {
        [$([
            concat!($pre, r#"{"colour":""#, $colour, r#"","value":0}"#, $post),
            concat!($pre, r#"{"colour":""#, $colour, r#"","value":1}"#, $post),
            concat!($pre, r#"{"colour":""#, $colour, r#"","value":2}"#, $post),
            concat!($pre, r#"{"colour":""#, $colour, r#"","value":3}"#, $post),
            concat!($pre, r#"{"colour":""#, $colour, r#"","value":4}"#, $post),
        ]),*]
    };
}

/// Texts of every chip a view can show, by colour and value.
type ChipTexts = [[&'static str; 5]; Colour::ALL.len()];

/// `{"colour":"white","value":1}`
const CHIP: ChipTexts = chip_texts!("", "");
/// A [`ChipCount`] up to its count: `{"chip":{"colour":"white","value":1},"count":`
const CHIP_COUNT: ChipTexts = chip_texts!(r#"{"chip":"#, r#","count":"#);
/// A [`Placed`] up to its space: `{"chip":{"colour":"white","value":1},"space":`
const PLACED: ChipTexts = chip_texts!(r#"{"chip":"#, r#","space":"#);

/// The text of `chip` in `texts`, if its value is in the table (always, for the chips in the box).
fn chip_text(texts: &ChipTexts, chip: Chip) -> Option<&'static str> {
    texts[chip.colour as usize].get(usize::from(chip.value)).copied()
}

/// `{"colour":"white","value":1}`
pub(super) fn push_chip(out: &mut String, chip: Chip) {
    match chip_text(&CHIP, chip) {
        Some(text) => out.push_str(text),
        None => {
            out.push_str(r#"{"colour":""#);
            out.push_str(colour_name(chip.colour));
            out.push_str(r#"","value":"#);
            push_number(out, chip.value);
            out.push('}');
        }
    }
}

/// `{"chip":{...},"count":4}`
pub(super) fn push_chip_count(out: &mut String, c: ChipCount) {
    match chip_text(&CHIP_COUNT, c.chip) {
        Some(text) => out.push_str(text),
        None => {
            out.push_str(r#"{"chip":"#);
            push_chip(out, c.chip);
            out.push_str(r#","count":"#);
        }
    }
    push_small(out, c.count);
    out.push('}');
}

/// `{"chip":{...},"space":12}`
pub(super) fn push_placed(out: &mut String, placed: &Placed) {
    match chip_text(&PLACED, placed.chip) {
        Some(text) => out.push_str(text),
        None => {
            out.push_str(r#"{"chip":"#);
            push_chip(out, placed.chip);
            out.push_str(r#","space":"#);
        }
    }
    push_small(out, placed.space);
    out.push('}');
}

/// The counts of the chips in `a` and `b` together, as [`counts`] lists them.
fn push_counts(out: &mut String, a: &[Chip], b: &[Chip]) {
    out.push('[');
    let mut first = true;
    for_each_count(a, b, |c| {
        if !first {
            out.push(',');
        }
        first = false;
        push_chip_count(out, c);
    });
    out.push(']');
}

impl Quacks {
    /// `viewer`'s view as serde would write [`Game::view`]'s value.
    pub(super) fn view_json_text(&self, viewer: Viewer) -> String {
        // Room for the largest views of random games (about 1250 bytes and 750 a player), so that the text is
        // seldom copied as it grows.
        let mut out = String::with_capacity(1536 + 1024 * self.players.len());
        out.push_str(r#"{"viewer":"#);
        push_viewer(&mut out, viewer);
        out.push_str(r#","round":"#);
        push_small(&mut out, self.round);
        out.push_str(r#","rounds":"#);
        push_small(&mut out, ROUNDS);
        out.push_str(r#","start_player":"#);
        push_small(&mut out, self.start_player.0);
        out.push_str(r#","phase":""#);
        out.push_str(self.phase.name());
        out.push_str(r#"","card":"#);
        push_serde(&mut out, &self.card);
        out.push_str(r#","cards_left":"#);
        push_number(&mut out, self.deck.len());
        out.push_str(r#","white_limit":"#);
        push_small(&mut out, self.white_limit());
        out.push_str(r#","books":"#);
        push_array(
            &mut out,
            Colour::ALL.into_iter().filter(|c| self.book_open(*c)),
            |out, colour| {
                out.push('"');
                out.push_str(colour_name(colour));
                out.push('"');
            },
        );
        out.push_str(r#","supply":"#);
        push_array(&mut out, &self.supply, |out, &(chip, count)| {
            push_chip_count(out, ChipCount { chip, count })
        });
        out.push_str(r#","players":"#);
        push_array(&mut out, self.players.iter().enumerate(), |out, (i, p)| {
            self.push_player(out, Seat(i as u8), p, viewer == Viewer::Seat(Seat(i as u8)))
        });
        out.push_str(r#","outcome":"#);
        match self.outcome() {
            Some(outcome) => push_serde(&mut out, &outcome),
            None => out.push_str("null"),
        }
        out.push('}');
        out
    }

    /// One [`PlayerView`]; `own`: the viewer sits at `seat` (and may see the hidden members).
    fn push_player(&self, out: &mut String, seat: Seat, p: &Player, own: bool) {
        out.push_str(r#"{"seat":"#);
        push_small(out, seat.0);
        out.push_str(r#","score":"#);
        push_small(out, p.score);
        out.push_str(r#","rubies":"#);
        push_small(out, p.rubies);
        out.push_str(r#","droplet":"#);
        push_small(out, p.droplet);
        out.push_str(r#","rat_tails":"#);
        push_small(out, p.rat_tails);
        out.push_str(r#","rat_space":"#);
        push_small(out, p.start_space());
        out.push_str(r#","flask_full":"#);
        push_bool(out, p.flask_full);
        out.push_str(r#","pot":"#);
        push_array(out, &p.pot, push_placed);
        out.push_str(r#","whites":"#);
        push_small(out, p.whites);
        out.push_str(r#","brew":""#);
        out.push_str(brew_name(p.brew));
        out.push_str(r#"","scoring_space":"#);
        push_small(out, p.scoring_space_now());
        out.push_str(r#","not_in_pot":"#);
        push_counts(out, &p.bag, &p.aside);
        out.push_str(r#","looking_at_count":"#);
        push_number(out, p.aside.len());
        // The hidden members: the chips looked at, the bag and the round-9 commitment, to their owner only.
        out.push_str(r#","looking_at":"#);
        if own {
            push_array(out, &p.aside, |out, chip| push_chip(out, *chip));
        } else {
            out.push_str("null");
        }
        out.push_str(r#","bag":"#);
        if own {
            push_counts(out, &p.bag, &[]);
        } else {
            out.push_str("null");
        }
        out.push_str(r#","deciding":"#);
        match &p.pending {
            Some(pending) => push_serde(out, pending),
            None => out.push_str("null"),
        }
        out.push_str(r#","committed":"#);
        push_bool(out, p.commitment.is_some());
        out.push_str(r#","commitment":"#);
        match p.commitment {
            Some(commitment) if own => push_serde(out, &commitment),
            _ => out.push_str("null"),
        }
        out.push_str(r#","shop":""#);
        out.push_str(shop_name(p.shop));
        out.push_str(r#"","coins":"#);
        push_small(out, p.coins);
        out.push('}');
    }
}

/// A fortune-teller card by its serde name.
pub(super) fn card_name(card: Card) -> &'static str {
    match card {
        Card::RollTheDie => "roll_the_die",
        Card::ThePotIsFillingUp => "the_pot_is_filling_up",
        Card::Charity => "charity",
        Card::BeginnersBonus => "beginners_bonus",
        Card::RatInfestation => "rat_infestation",
        Card::RatsAreYourFriends => "rats_are_your_friends",
        Card::AGoodStart => "a_good_start",
        Card::JustInTime => "just_in_time",
        Card::YouOnlyGetToChooseOne => "you_only_get_to_choose_one",
        Card::ChooseWisely => "choose_wisely",
        Card::WheelAndDeal => "wheel_and_deal",
        Card::AnOpportunisticMoment => "an_opportunistic_moment",
        Card::LessIsMore => "less_is_more",
        Card::ThePotIsFull => "the_pot_is_full",
        Card::PumpkinPatchParty => "pumpkin_patch_party",
        Card::LuckyDevil => "lucky_devil",
        Card::ItsShiningExtraBright => "its_shining_extra_bright",
        Card::MagicPotion => "magic_potion",
        Card::SeasonedPerfectly => "seasoned_perfectly",
        Card::LivingInLuxury => "living_in_luxury",
        Card::WellStirred => "well_stirred",
        Card::StrongIngredient => "strong_ingredient",
        Card::Schadenfreude => "schadenfreude",
        Card::ASecondChance => "a_second_chance",
    }
}

/// A bonus die face by its serde name.
pub(super) fn face_name(face: DieFace) -> &'static str {
    match face {
        DieFace::OnePoint => "one_point",
        DieFace::TwoPoints => "two_points",
        DieFace::Ruby => "ruby",
        DieFace::Droplet => "droplet",
        DieFace::Pumpkin => "pumpkin",
    }
}

fn push_chips(out: &mut String, chips: &[Chip]) {
    push_array(out, chips, |out, chip| push_chip(out, *chip));
}

/// A [`FortuneChoice`] (internally tagged by `option`).
fn push_choice(out: &mut String, choice: &FortuneChoice) {
    match choice {
        FortuneChoice::TakeChip { chip } => {
            out.push_str(r#"{"option":"take_chip","chip":"#);
            push_chip(out, *chip);
        }
        FortuneChoice::PointsForRatTails => out.push_str(r#"{"option":"points_for_rat_tails""#),
        FortuneChoice::KeepRatTails => out.push_str(r#"{"option":"keep_rat_tails""#),
        FortuneChoice::TradeRatTails { tails } => {
            out.push_str(r#"{"option":"trade_rat_tails","tails":"#);
            push_small(out, *tails);
        }
        FortuneChoice::FourPoints => out.push_str(r#"{"option":"four_points""#),
        FortuneChoice::RemoveWhite => out.push_str(r#"{"option":"remove_white""#),
        FortuneChoice::ThreeRubies => out.push_str(r#"{"option":"three_rubies""#),
        FortuneChoice::DropletSteps => out.push_str(r#"{"option":"droplet_steps""#),
        FortuneChoice::TradeUp { chip } => {
            out.push_str(r#"{"option":"trade_up","chip":"#);
            push_chip(out, *chip);
        }
        FortuneChoice::Decline => out.push_str(r#"{"option":"decline""#),
    }
    out.push('}');
}

/// `{"type":"buy","chips":[` .. `]}` around the chips of a purchase.
fn push_buy(out: &mut String, chips: &[Chip]) {
    out.push_str(r#"{"type":"buy","chips":"#);
    push_chips(out, chips);
    out.push('}');
}

/// An [`Action`] (internally tagged by `type`).
fn push_action(out: &mut String, action: &Action) {
    let unit = match action {
        Action::Place { chip } => {
            out.push_str(r#"{"type":"place","chip":"#);
            push_chip(out, *chip);
            out.push('}');
            return;
        }
        Action::Fortune { choice } => {
            out.push_str(r#"{"type":"fortune","choice":"#);
            push_choice(out, choice);
            out.push('}');
            return;
        }
        Action::Buy { chips } => return push_buy(out, chips),
        Action::Draw => r#"{"type":"draw"}"#,
        Action::Stop => r#"{"type":"stop"}"#,
        Action::UseFlask => r#"{"type":"use_flask"}"#,
        Action::ReturnFirstWhite => r#"{"type":"return_first_white"}"#,
        Action::ReturnWhiteBeforeMandrake => r#"{"type":"return_white_before_mandrake"}"#,
        Action::PlaceNone => r#"{"type":"place_none"}"#,
        Action::StartOver => r#"{"type":"start_over"}"#,
        Action::KeepPotion => r#"{"type":"keep_potion"}"#,
        Action::TakePoints => r#"{"type":"take_points"}"#,
        Action::ConvertCoins => r#"{"type":"convert_coins"}"#,
        Action::BuyNothing => r#"{"type":"buy_nothing"}"#,
        Action::MoveDroplet => r#"{"type":"move_droplet"}"#,
        Action::RefillFlask => r#"{"type":"refill_flask"}"#,
        Action::FinishRound => r#"{"type":"finish_round"}"#,
    };
    out.push_str(unit);
}

/// An action's JSON text, as serde writes it.
pub(super) fn action_json_text(action: &Action) -> String {
    let mut out = String::with_capacity(64);
    push_action(&mut out, action);
    out
}

/// A [`Gain`] (internally tagged by `kind`).
fn push_gain(out: &mut String, gain: &Gain) {
    match gain {
        Gain::Points { points } => {
            out.push_str(r#"{"kind":"points","points":"#);
            push_small(out, *points);
        }
        Gain::Rubies { rubies } => {
            out.push_str(r#"{"kind":"rubies","rubies":"#);
            push_small(out, *rubies);
        }
        Gain::DropletSteps { steps } => {
            out.push_str(r#"{"kind":"droplet_steps","steps":"#);
            push_small(out, *steps);
        }
        Gain::Chip { chip } => {
            out.push_str(r#"{"kind":"chip","chip":"#);
            push_chip(out, *chip);
        }
        Gain::ChipRemoved { chip } => {
            out.push_str(r#"{"kind":"chip_removed","chip":"#);
            push_chip(out, *chip);
        }
    }
    out.push('}');
}

/// A [`Reason`] (internally tagged by `source`).
fn push_reason(out: &mut String, reason: &Reason) {
    let unit = match reason {
        Reason::Fortune { card } => {
            out.push_str(r#"{"source":"fortune","card":"#);
            push_name(out, card_name(*card));
            out.push('}');
            return;
        }
        Reason::BonusDie => r#"{"source":"bonus_die"}"#,
        Reason::Moth => r#"{"source":"moth"}"#,
        Reason::Spider => r#"{"source":"spider"}"#,
        Reason::GhostsBreath => r#"{"source":"ghosts_breath"}"#,
        Reason::RubySpace => r#"{"source":"ruby_space"}"#,
        Reason::ScoringSpace => r#"{"source":"scoring_space"}"#,
        Reason::ExtraWhite => r#"{"source":"extra_white"}"#,
    };
    out.push_str(unit);
}

/// An event's JSON text (internally tagged by `type`), as serde writes it.
pub(super) fn event_json_text(event: &QuacksEvent) -> String {
    let mut text = String::with_capacity(128);
    let out = &mut text;
    // The events that are only a seat: `{"type":"..","seat":n}`.
    let seat_only = |out: &mut String, head: &str, seat: &Seat| {
        out.push_str(head);
        push_seat(out, *seat);
    };
    match event {
        QuacksEvent::RoundStarted { round, start_player } => {
            out.push_str(r#"{"type":"round_started","round":"#);
            push_small(out, *round);
            out.push_str(r#","start_player":"#);
            push_seat(out, *start_player);
        }
        QuacksEvent::BookOpened { colour } => {
            out.push_str(r#"{"type":"book_opened","colour":"#);
            push_name(out, colour_name(*colour));
        }
        QuacksEvent::CardRevealed { card } => {
            out.push_str(r#"{"type":"card_revealed","card":"#);
            push_name(out, card_name(*card));
        }
        QuacksEvent::DieRolled { seat, face } => {
            out.push_str(r#"{"type":"die_rolled","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","face":"#);
            push_name(out, face_name(*face));
        }
        QuacksEvent::Gained { seat, gain, reason } => {
            out.push_str(r#"{"type":"gained","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","gain":"#);
            push_gain(out, gain);
            out.push_str(r#","reason":"#);
            push_reason(out, reason);
        }
        QuacksEvent::RatTails { seat, tails } => {
            out.push_str(r#"{"type":"rat_tails","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","tails":"#);
            push_small(out, *tails);
        }
        QuacksEvent::Showed { seat, chips } => {
            out.push_str(r#"{"type":"showed","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","chips":"#);
            push_chips(out, chips);
        }
        QuacksEvent::DrewToLookAt { seat, count } => {
            out.push_str(r#"{"type":"drew_to_look_at","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","count":"#);
            push_number(out, *count);
        }
        QuacksEvent::LookingAt { seat, chips } => {
            out.push_str(r#"{"type":"looking_at","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","chips":"#);
            push_chips(out, chips);
        }
        QuacksEvent::PutBack { seat, count } => {
            out.push_str(r#"{"type":"put_back","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","count":"#);
            push_number(out, *count);
        }
        QuacksEvent::Chose { seat, choice } => {
            out.push_str(r#"{"type":"chose","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","choice":"#);
            push_choice(out, choice);
        }
        QuacksEvent::TradedUp { seat, from, to } => {
            out.push_str(r#"{"type":"traded_up","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","from":"#);
            push_chip(out, *from);
            out.push_str(r#","to":"#);
            push_chip(out, *to);
        }
        QuacksEvent::Placed {
            seat,
            chip,
            space,
            whites,
        } => {
            out.push_str(r#"{"type":"placed","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","chip":"#);
            push_chip(out, *chip);
            out.push_str(r#","space":"#);
            push_small(out, *space);
            out.push_str(r#","whites":"#);
            push_small(out, *whites);
        }
        QuacksEvent::Exploded { seat } => seat_only(out, r#"{"type":"exploded","seat":"#, seat),
        QuacksEvent::Stopped { seat } => seat_only(out, r#"{"type":"stopped","seat":"#, seat),
        QuacksEvent::FlaskUsed { seat, chip } => {
            out.push_str(r#"{"type":"flask_used","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","chip":"#);
            push_chip(out, *chip);
        }
        QuacksEvent::WhiteReturned { seat, chip } => {
            out.push_str(r#"{"type":"white_returned","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","chip":"#);
            push_chip(out, *chip);
        }
        QuacksEvent::StartedOver { seat } => seat_only(out, r#"{"type":"started_over","seat":"#, seat),
        QuacksEvent::KeptPotion { seat } => seat_only(out, r#"{"type":"kept_potion","seat":"#, seat),
        QuacksEvent::Committed { seat } => seat_only(out, r#"{"type":"committed","seat":"#, seat),
        QuacksEvent::CommittedTo { seat, commitment } => {
            out.push_str(r#"{"type":"committed_to","seat":"#);
            push_seat(out, *seat);
            out.push_str(match commitment {
                Commitment::Draw => r#","commitment":"draw""#,
                Commitment::Stop => r#","commitment":"stop""#,
            });
        }
        QuacksEvent::Stirred { draw, stop } => {
            out.push_str(r#"{"type":"stirred","draw":"#);
            push_array(out, draw, |out, seat| push_seat(out, *seat));
            out.push_str(r#","stop":"#);
            push_array(out, stop, |out, seat| push_seat(out, *seat));
        }
        QuacksEvent::Scoring {
            seat,
            space,
            coins,
            points,
            exploded,
        } => {
            out.push_str(r#"{"type":"scoring","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","space":"#);
            push_small(out, *space);
            out.push_str(r#","coins":"#);
            push_small(out, *coins);
            out.push_str(r#","points":"#);
            push_small(out, *points);
            out.push_str(r#","exploded":"#);
            push_bool(out, *exploded);
        }
        QuacksEvent::Bought { seat, chips } => {
            out.push_str(r#"{"type":"bought","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","chips":"#);
            push_chips(out, chips);
        }
        QuacksEvent::BoughtNothing { seat } => seat_only(out, r#"{"type":"bought_nothing","seat":"#, seat),
        QuacksEvent::DropletMoved { seat, space } => {
            out.push_str(r#"{"type":"droplet_moved","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","space":"#);
            push_small(out, *space);
        }
        QuacksEvent::FlaskRefilled { seat } => seat_only(out, r#"{"type":"flask_refilled","seat":"#, seat),
        QuacksEvent::Converted {
            seat,
            coins,
            rubies,
            points,
        } => {
            out.push_str(r#"{"type":"converted","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","coins":"#);
            push_small(out, *coins);
            out.push_str(r#","rubies":"#);
            push_small(out, *rubies);
            out.push_str(r#","points":"#);
            push_small(out, *points);
        }
        QuacksEvent::FinishedRound { seat } => seat_only(out, r#"{"type":"finished_round","seat":"#, seat),
        QuacksEvent::GameOver { scores } => {
            out.push_str(r#"{"type":"game_over","scores":"#);
            push_array(out, scores, |out, score| push_small(out, *score));
        }
    }
    out.push('}');
    text
}

impl Quacks {
    /// `seat`'s legal actions as the JSON text of one array, as serde writes [`Game::legal_actions`]: the
    /// purchases written as [`Quacks::each_buy_option`] finds them (no list of typed purchases, a list of chips
    /// each, built), every other list from the typed actions (a handful).
    pub(super) fn legal_actions_json_text(&self, seat: Seat) -> String {
        let buying = seat.0 < self.n() && self.phase == Phase::Evaluation && {
            let shop = self.players[seat.index()].shop;
            shop == Shop::Buying || (shop == Shop::PointsOrBuying && self.round != ROUNDS)
        };
        if !buying {
            let legal = self.legal_actions(seat);
            let mut out = String::with_capacity(24 + 48 * legal.len());
            push_array(&mut out, &legal, push_action);
            return out;
        }
        // Room for the longest lists without growing: ~50 purchases of up to ~90 bytes.
        let mut out = String::with_capacity(4096);
        out.push('[');
        if self.players[seat.index()].shop == Shop::PointsOrBuying {
            out.push_str(r#"{"type":"take_points"},"#);
        }
        self.each_buy_option(seat, |chips| match chips {
            [] => out.push_str(r#"{"type":"buy_nothing"}"#),
            chips => {
                out.push(',');
                push_buy(&mut out, chips);
            }
        });
        out.push(']');
        out
    }
}
