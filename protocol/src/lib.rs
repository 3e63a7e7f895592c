//! The wire protocol. Filled in by the server issue.
