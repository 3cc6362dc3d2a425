//! TCP: the sender (sequence space, timers, recovery) and the receiver (ACK policy).

pub mod cwnd_use;
pub mod prr;
pub mod rack;
pub mod rate;
pub mod receiver;
pub mod reno_sack;
pub mod sack;
pub mod scoreboard;
pub mod sender;
pub mod tlp;

pub use receiver::Receiver;
pub use sender::{LossEvent, Sender, SenderIo, SENDER_TRACE_COLUMNS};
