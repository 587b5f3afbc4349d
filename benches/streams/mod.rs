//! The parts of the streams-per-core benchmark (`benches/streams_per_core.rs`): the paced
//! model reply and its time stamps, the processes under test, and the load client.

pub mod client;
pub mod procs;
pub mod reply;
