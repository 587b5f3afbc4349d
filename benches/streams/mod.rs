//! The parts of the streams-per-core benchmark (`benches/streams_per_core.rs`): the paced
//! model reply and its time stamps, the processes under test and the sides they run (our
//! server, the fake model), the load client, the floor (the same streams on tokio, hyper
//! and axum alone), and the scale-out check on PostgreSQL.

pub mod client;
pub mod floor;
pub mod procs;
pub mod reply;
pub mod scale_out;
pub mod sides;
