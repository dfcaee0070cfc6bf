//! How much memory the computer has and has free, so the model list can
//! mark what will not fit and a load that would not fit is refused before
//! the engine tries (and the kernel kills it).

/// Bytes of memory: the total, and what can be had without swapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Memory {
    pub total: u64,
    pub available: u64,
}

/// The machine's memory, or `None` where it cannot be read.
pub fn read() -> Option<Memory> {
    platform::read()
}

/// Where an engine reads the machine's memory: [`read`], or what a test
/// puts in its place (a machine short of memory, on demand).
pub type MemoryReader = std::sync::Arc<dyn Fn() -> Option<Memory> + Send + Sync>;

/// What a model of `file_bytes` needs to run: its weights (read into the
/// engine, where llama.cpp may hold a tied embedding twice: once to look
/// tokens up, once repacked for the last matrix product) plus the KV cache
/// and compute buffers, estimated at 40 % over the file and at least 128 MiB
/// (measured: 1.36× for a Llama 3.2 1B-shaped model at a 1k context).
pub fn needed_for(file_bytes: u64) -> u64 {
    file_bytes + (file_bytes * 40 / 100).max(128 << 20)
}

#[cfg(target_os = "linux")]
mod platform {
    use super::Memory;

    pub(super) fn read() -> Option<Memory> {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        let field = |name: &str| -> Option<u64> {
            let line = text.lines().find(|l| l.starts_with(name))?;
            let kib: u64 = line[name.len()..]
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .ok()?;
            Some(kib * 1024)
        };
        Some(Memory {
            total: field("MemTotal:")?,
            available: field("MemAvailable:")?,
        })
    }
}

/// Windows and macOS: the system's own figures through `sysinfo`
/// (`GlobalMemoryStatusEx`'s total and available physical memory; the
/// Mach host statistics on macOS). `None` when the system reports none.
#[cfg(not(target_os = "linux"))]
mod platform {
    use super::Memory;

    pub(super) fn read() -> Option<Memory> {
        let mut system = sysinfo::System::new().ok()?;
        system.refresh_memory();
        let total = system.total_memory();
        (total > 0).then(|| Memory {
            total,
            available: system.available_memory().min(total),
        })
    }
}

#[cfg(test)]
mod tests {
    /// Every system the app is built for reports its memory (run on Linux,
    /// and on Windows under Wine by the test command).
    #[test]
    fn this_machines_memory_is_read() {
        let memory = super::read().expect("the memory of this machine");
        assert!(memory.total >= 64 << 20, "{memory:?}");
        assert!(
            memory.available > 0 && memory.available <= memory.total,
            "{memory:?}"
        );
    }
}
