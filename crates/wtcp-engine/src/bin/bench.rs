//! `wtcp-bench FILE [PATH=VALUE ...]`: run one scenario file in the engine alone (no
//! Python), with `--set`-style overrides (TOML values), and print the run's JSON. For
//! timing builds against each other and for trying an algorithm before the extension is
//! rebuilt. A bad argument or scenario: `error: ...` on stderr, exit status 2.

use std::process::ExitCode;

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<String>) -> Result<String, String> {
    let (file, sets) = args.split_first().ok_or("usage: wtcp-bench FILE [PATH=VALUE ...] (a scenario file and overrides)")?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let overrides = sets
        .iter()
        .map(|a| a.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())).ok_or_else(|| format!("{a:?}: not PATH=VALUE (e.g. flows.0.cc='\"cubic\"')")))
        .collect::<Result<Vec<_>, _>>()?;
    let scenario = wtcp_engine::Scenario::from_toml_str(&text, &overrides).map_err(|e| format!("{file}: {e}"))?;
    scenario.refuse_kernel_algorithms().map_err(|e| format!("{file}: {e}"))?;
    Ok(wtcp_engine::run(&scenario).to_json())
}
