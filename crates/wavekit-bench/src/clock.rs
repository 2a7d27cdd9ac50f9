//! The GPU's SM clock read through NVIDIA's management library (NVML, loaded at run time: on
//! other GPUs and on lavapipe there is none, and benchmarks report no clock). A thread samples
//! the clock every 5 ms while a benchmark runs; the protocol asks for the window of each case's
//! timed runs and flags a case timed below 90 % of the maximum clock.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::protocol::{ClockReader, ClockWindow};
use nvml_wrapper::Nvml;
use nvml_wrapper::enum_wrappers::device::Clock;

/// Samples of (time, MHz), newest last.
type Samples = Arc<Mutex<Vec<(Instant, u32)>>>;

/// A background reader of the SM clock of the NVIDIA device named like the adapter.
pub struct NvmlClock {
    samples: Samples,
    max_mhz: u32,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl NvmlClock {
    /// Starts sampling the NVML device whose name the adapter's contains (or the only one);
    /// `None` where NVML or such a device is missing.
    pub fn start(adapter_name: &str) -> Option<Self> {
        let nvml = Nvml::init().ok()?;
        let count = nvml.device_count().ok()?;
        let index = (0..count).find(|&i| {
            nvml.device_by_index(i)
                .and_then(|d| d.name())
                .is_ok_and(|n| adapter_name.contains(&n) || n.contains(adapter_name))
        });
        let index = index.or((count == 1).then_some(0))?;
        let max_mhz = nvml
            .device_by_index(index)
            .ok()?
            .max_clock_info(Clock::SM)
            .ok()?;
        let samples: Samples = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (samples.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let Ok(device) = nvml.device_by_index(index) else {
                return;
            };
            while !st.load(Ordering::Relaxed) {
                if let Ok(mhz) = device.clock_info(Clock::SM)
                    && let Ok(mut v) = s.lock()
                {
                    v.push((Instant::now(), mhz));
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        Some(Self {
            samples,
            max_mhz,
            stop,
            thread: Some(thread),
        })
    }
}

impl ClockReader for NvmlClock {
    fn window(&self, from: Instant, to: Instant) -> Option<ClockWindow> {
        let v = self.samples.lock().ok()?;
        // The samples of the window, and those of the 25 ms before it (the case's own warm-up
        // ran then): a window shorter than an NVML query (a few ms) may hold none of its own.
        let start = from.checked_sub(Duration::from_millis(25)).unwrap_or(from);
        let mut readings: Vec<u32> = v
            .iter()
            .filter(|(t, _)| *t >= start && *t <= to)
            .map(|&(_, m)| m)
            .collect();
        if readings.is_empty() {
            readings.push(v.iter().rev().find(|(t, _)| *t <= to)?.1);
        }
        Some(ClockWindow {
            min_mhz: *readings.iter().min()?,
            max_mhz: *readings.iter().max()?,
            max_supported_mhz: self.max_mhz,
        })
    }
}

impl Drop for NvmlClock {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
