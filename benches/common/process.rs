//! What the benches read of a process from /proc: its CPU time and its resident memory.

use std::time::Duration;

/// CPU time (user + system) the process `pid` has used so far; `None` for this process.
/// Zero when /proc cannot be read.
pub fn cpu(pid: Option<u32>) -> Duration {
    let path = match pid {
        Some(pid) => format!("/proc/{pid}/stat"),
        None => "/proc/self/stat".to_owned(),
    };
    let stat = std::fs::read_to_string(path).unwrap_or_default();
    // After the ")" closing the command name (which may hold spaces): state is the first
    // field, utime the 12th and stime the 13th (proc(5)).
    let fields: Vec<u64> = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .map(|f| f.parse().unwrap_or(0))
                .collect()
        })
        .unwrap_or_default();
    let ticks = fields.get(11).unwrap_or(&0) + fields.get(12).unwrap_or(&0);
    // SAFETY: sysconf only reads its argument.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1);
    Duration::from_secs_f64(ticks as f64 / per_second as f64)
}

/// Resident memory (VmRSS) of the process `pid`, in KiB; zero when /proc cannot be read.
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
