//! Parser bugs found by fuzzing or by users, one file each under `tests/regression/`.

#[path = "regression/long_open_tag_reads_alike_chunked_or_whole.rs"]
mod long_open_tag_reads_alike_chunked_or_whole;
