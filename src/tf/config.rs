//! The PluggableDevice / NextPluggableDevice switch, decided once per process and shared by every
//! TensorFlow entry point (`SE_InitPlugin`, `TFNPD_InitPlugin`, `TF_InitKernel`).
//!
//! Rules:
//! - `APU_ENABLE_NEXTPLUGGABLE_DEVICE=1|true` asks for NPD, `0|false` for PD; unset means NPD.
//! - `TF_XLA_FLAGS` containing `--tf_xla_use_device_api=true`, or XLA auto-jit being on, imply NPD
//!   (jit-compiled functions reach a device only through PJRT).
//! - A TensorFlow that cannot take apu's PJRT client (neither the C function of ≤ 2.18 nor a build in
//!   `npd::abi::CHECKED_BUILDS`, whose exported C++ apu calls instead), or a library without the PJRT
//!   table, falls back to PD.
//! - Contradictions are logged in one line and never abort: an error status at plug-in registration would
//!   kill the whole TensorFlow process.

use std::sync::OnceLock;

/// Which device flavour carries the user-visible `APU` device type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// StreamExecutor PluggableDevice with apu's own kernels.
    Pluggable,
    /// NextPluggableDevice backed by apu's PJRT table.
    NextPluggable,
}

impl Mode {
    pub fn describe(self) -> &'static str {
        match self {
            Mode::Pluggable => "PluggableDevice",
            Mode::NextPluggable => "NextPluggableDevice",
        }
    }
}

/// The user-visible device type of the active side.
pub const DEVICE_TYPE: &str = "APU";
/// The device type the inactive side registers (with zero devices), so the two never collide.
pub const DUMMY_DEVICE_TYPE: &str = "APU_DUMMY";
/// Environment variable of the switch.
pub const SWITCH_VAR: &str = "APU_ENABLE_NEXTPLUGGABLE_DEVICE";

/// What the process environment says, gathered once (and constructed directly by tests).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// The raw value of `APU_ENABLE_NEXTPLUGGABLE_DEVICE`, if set.
    pub switch: Option<String>,
    /// The raw value of `TF_XLA_FLAGS`, if set.
    pub tf_xla_flags: Option<String>,
    /// `TF_GetXlaAutoJitEnabled()` when TensorFlow exports it.
    pub auto_jit: bool,
    /// Why NPD cannot be hosted here (`None` when it can).
    pub npd_unavailable: Option<String>,
}

/// The decision and the single line that explains it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub mode: Mode,
    pub log_line: String,
}

impl Config {
    /// The device type `SE_InitPlugin` registers.
    pub fn pluggable_device_type(&self) -> &'static str {
        if self.mode == Mode::Pluggable {
            DEVICE_TYPE
        } else {
            DUMMY_DEVICE_TYPE
        }
    }
    /// The device type `TFNPD_InitPlugin` registers.
    pub fn next_pluggable_device_type(&self) -> &'static str {
        if self.mode == Mode::NextPluggable {
            DEVICE_TYPE
        } else {
            DUMMY_DEVICE_TYPE
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Request {
    Npd,
    Pd,
}

fn parse_switch(raw: &str) -> Option<Request> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "1" | "true" => Some(Request::Npd),
        "0" | "false" => Some(Request::Pd),
        _ => None,
    }
}

/// Whether the XLA flags ask TensorFlow to reach devices through PJRT for jit compilation.
fn flags_want_device_api(flags: &str) -> bool {
    flags.split_whitespace().any(|f| {
        f == "--tf_xla_use_device_api=true"
            || f == "--tf_xla_use_device_api"
            || f.strip_prefix("--tf_xla_auto_jit=").is_some_and(|v| v != "0" && v != "-1" && !v.is_empty())
    })
}

/// The pure decision, from the gathered inputs.
pub fn decide(inputs: &Inputs) -> Config {
    let mut notes: Vec<String> = Vec::new();
    let request = match inputs.switch.as_deref() {
        None => None,
        Some(raw) => {
            let r = parse_switch(raw);
            if r.is_none() {
                notes.push(format!("ignoring {SWITCH_VAR}={raw:?} (expected 1, true, 0 or false)"));
            }
            r
        }
    };
    let jit_reason = if inputs.tf_xla_flags.as_deref().is_some_and(flags_want_device_api) {
        Some("TF_XLA_FLAGS asks for the XLA device API / auto-jit")
    } else if inputs.auto_jit {
        Some("XLA auto-jit is on")
    } else {
        None
    };

    let mode = match (request, &inputs.npd_unavailable) {
        (Some(Request::Pd), _) => {
            if let Some(why) = jit_reason {
                notes.push(format!(
                    "{SWITCH_VAR}=0 wins over \"{why}\": jit-compiled functions will not run on APU"
                ));
            }
            notes.insert(0, format!("{SWITCH_VAR}=0"));
            Mode::Pluggable
        }
        (_, Some(why_not)) => {
            let asked = match (request, jit_reason) {
                (Some(Request::Npd), _) => Some(format!("{SWITCH_VAR}=1 asked for NextPluggableDevice")),
                (_, Some(j)) => Some(format!("{j}, which implies NextPluggableDevice")),
                _ => None,
            };
            match asked {
                Some(a) => notes.insert(0, format!("{a}, but {why_not}; falling back")),
                None => notes.insert(0, format!("default would be NextPluggableDevice, but {why_not}")),
            }
            Mode::Pluggable
        }
        (Some(Request::Npd), None) => {
            notes.insert(0, format!("{SWITCH_VAR}=1"));
            Mode::NextPluggable
        }
        (None, None) => {
            notes.insert(0, jit_reason.map_or_else(|| "default".to_string(), str::to_string));
            Mode::NextPluggable
        }
    };
    let log_line = format!("apu: TensorFlow device mode: {} ({})", mode.describe(), notes.join("; "));
    Config { mode, log_line }
}

static CONFIG: OnceLock<Config> = OnceLock::new();

/// The process-wide decision; the first call gathers the inputs and logs the line.
pub fn get() -> &'static Config {
    CONFIG.get_or_init(|| {
        let inputs = Inputs {
            switch: std::env::var(SWITCH_VAR).ok(),
            tf_xla_flags: std::env::var("TF_XLA_FLAGS").ok(),
            auto_jit: super::npd::host::auto_jit_enabled(),
            npd_unavailable: super::npd::host::why_npd_unavailable(),
        };
        let config = decide(&inputs);
        eprintln!("{}", config.log_line);
        config
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(switch: Option<&str>, flags: Option<&str>, npd_unavailable: Option<&str>) -> Inputs {
        Inputs {
            switch: switch.map(str::to_string),
            tf_xla_flags: flags.map(str::to_string),
            auto_jit: false,
            npd_unavailable: npd_unavailable.map(str::to_string),
        }
    }

    #[test]
    fn default_is_npd_when_the_host_can_do_it() {
        let c = decide(&inputs(None, None, None));
        assert_eq!(c.mode, Mode::NextPluggable);
        assert!(c.log_line.contains("NextPluggableDevice (default)"), "{}", c.log_line);
        assert_eq!(c.pluggable_device_type(), "APU_DUMMY");
        assert_eq!(c.next_pluggable_device_type(), "APU");
    }

    #[test]
    fn default_falls_back_to_pd_without_npd_host_support() {
        let c = decide(&inputs(None, None, Some("TensorFlow lacks TF_CreateAndSetPjRtCApiClient")));
        assert_eq!(c.mode, Mode::Pluggable);
        assert!(c.log_line.contains("lacks TF_CreateAndSetPjRtCApiClient"), "{}", c.log_line);
        assert_eq!(c.pluggable_device_type(), "APU");
    }

    #[test]
    fn switch_values() {
        for v in ["0", "false", "FALSE", " 0 "] {
            assert_eq!(decide(&inputs(Some(v), None, None)).mode, Mode::Pluggable, "{v}");
        }
        for v in ["1", "true", "True"] {
            assert_eq!(decide(&inputs(Some(v), None, None)).mode, Mode::NextPluggable, "{v}");
        }
        let c = decide(&inputs(Some("maybe"), None, None));
        assert_eq!(c.mode, Mode::NextPluggable);
        assert!(c.log_line.contains("ignoring APU_ENABLE_NEXTPLUGGABLE_DEVICE=\"maybe\""), "{}", c.log_line);
    }

    #[test]
    fn xla_flags_imply_npd_but_explicit_pd_wins_with_a_note() {
        let flags = Some("--tf_xla_use_device_api=true --tf_xla_auto_jit=2");
        assert_eq!(decide(&inputs(None, flags, None)).mode, Mode::NextPluggable);
        let c = decide(&inputs(Some("0"), flags, None));
        assert_eq!(c.mode, Mode::Pluggable);
        assert!(c.log_line.contains("jit-compiled functions will not run on APU"), "{}", c.log_line);
        assert_eq!(c.log_line.lines().count(), 1);
    }

    #[test]
    fn explicit_npd_on_a_host_without_npd_falls_back_with_a_reason() {
        let c = decide(&inputs(Some("1"), None, Some("TensorFlow 2.19+ does not export it")));
        assert_eq!(c.mode, Mode::Pluggable);
        assert!(c.log_line.contains("asked for NextPluggableDevice, but TensorFlow 2.19+"), "{}", c.log_line);
    }

    #[test]
    fn auto_jit_flag_parsing() {
        assert!(flags_want_device_api("--tf_xla_auto_jit=2"));
        assert!(!flags_want_device_api("--tf_xla_auto_jit=0"));
        assert!(!flags_want_device_api("--tf_xla_use_device_api=false"));
        assert!(!flags_want_device_api("--tf_xla_cpu_global_jit"));
    }
}
