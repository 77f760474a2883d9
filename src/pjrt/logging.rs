//! Logging for the plugin: `tracing` output to stderr, filtered by `APU_LOG` (e.g. `APU_LOG=debug`,
//! `APU_LOG=apu=trace`); silent except warnings when unset.

use std::sync::Once;

static INIT: Once = Once::new();

pub fn init() {
    INIT.call_once(|| {
        let filter = std::env::var("APU_LOG").unwrap_or_else(|_| "warn".to_string());
        let filter = tracing_subscriber::EnvFilter::try_new(&filter)
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
        // Another library in the process may already have installed a subscriber; that is fine.
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .try_init();
    });
}
