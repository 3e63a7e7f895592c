//! Pure, deterministic rules engines for the games the server hosts.
//!
//! Architecture invariant: this crate performs no I/O, uses no async runtime, reads no clock and uses no global
//! random generator. `(configuration, player count, seed, actions with their times)` always yields the same state
//! and the same events.

pub mod bot;
pub mod games;
pub mod model;
pub mod registry;
pub mod rng;
pub mod secrets;
pub mod testkit;

pub use model::{
    Actor, Audience, Deadline, Event, Game, GameInfo, Millis, OptionKind, OptionSpec, Outcome, PlayerCounts,
    Reject, RejectKind, Rejection, Seat, SetupError, Status, Viewer,
};
pub use registry::{
    AnyGame, Applied, GameSchemas, GameSecrets, GameVisitor, ReplayError, catalogue, normalise_config,
    rules_versions, schemas, visit_games,
};
pub use rng::Rng;
pub use secrets::Secrets;
