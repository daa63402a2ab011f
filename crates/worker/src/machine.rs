//! What a worker runs on, recorded with its presence (`workers.machine`), so
//! that timings measured on a farm of mixed machines can be told apart by the
//! machine that ran each job (`hfarm job KEY`, `GET /api/jobs/{key}`).

use serde_json::{json, Value};

/// This machine: hfarm's version, the host name, the CPU model, the cores
/// this process may use, the memory, and whether the worker computes on CUDA.
/// Fields Linux does not tell (another OS) are null.
pub fn describe(cuda: bool) -> Value {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let host = read("/proc/sys/kernel/hostname").or_else(|| read("/etc/hostname")).map(|h| h.trim().to_string());
    let cpuinfo = read("/proc/cpuinfo").unwrap_or_default();
    let meminfo = read("/proc/meminfo").unwrap_or_default();
    json!({
        "hfarm": env!("CARGO_PKG_VERSION"),
        "host": host,
        "cpu": cpu_model(&cpuinfo),
        "cores": std::thread::available_parallelism().map(|n| n.get()).ok(),
        "memory_gib": memory_gib(&meminfo),
        "cuda": cuda,
        "arch": std::env::consts::ARCH,
    })
}

/// The first `model name` of /proc/cpuinfo (x86) or its `Model` line (ARM boards).
fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo.lines().find_map(|l| {
        let (key, value) = l.split_once(':')?;
        matches!(key.trim(), "model name" | "Model").then(|| value.trim().to_string())
    })
}

/// MemTotal of /proc/meminfo in GiB, to a tenth.
fn memory_gib(meminfo: &str) -> Option<f64> {
    let kb: f64 =
        meminfo.lines().find_map(|l| l.strip_prefix("MemTotal:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some((kb / (1024.0 * 1024.0) * 10.0).round() / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_cpu_and_memory_lines() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n";
        assert_eq!(cpu_model(cpuinfo).as_deref(), Some("Intel(R) Xeon(R) CPU @ 2.20GHz"));
        assert_eq!(cpu_model("processor : 0\n"), None);
        assert_eq!(memory_gib("MemTotal:       24609140 kB\nMemFree: 1 kB\n"), Some(23.5));
        assert_eq!(memory_gib("nothing"), None);
        let here = describe(false);
        assert_eq!(here["hfarm"], env!("CARGO_PKG_VERSION"));
        assert_eq!(here["cuda"], false);
        assert!(here["cores"].as_u64().is_some_and(|n| n >= 1), "{here}");
    }
}
