//! The render budget (issue 29): a render stops, with an error naming the template, its line and column and the
//! limit, when it builds more bytes than its budget, runs past its timeout, or is cancelled from another thread.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use berth_chart::render::{Lookup, Release, RenderBudget, RenderOptions, offline, render_templates};
use berth_go::Value;
use berth_template::Cancel;
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

/// A loop of 25 million iterations: minutes of work, stopped by the range budget (10 million) if nothing else.
const ENDLESS: &str = "{{- range $i := until 5000 }}{{ range $j := until 5000 }}{{ end }}{{ end }}\n";

/// A string doubled 40 times: a terabyte.
const DOUBLING: &str = "{{- $s := \"x\" }}\n{{- range until 40 }}{{ $s = print $s $s }}{{ end }}{{ $s }}\n";

/// A chart of `templates` (name, text), loaded as a chart directory is.
fn chart(templates: &[(&str, &str)]) -> berth_chart::chart::Chart {
    let directory = tempfile::tempdir().expect("a directory");
    std::fs::write(directory.path().join("Chart.yaml"), "apiVersion: v2\nname: budget\nversion: 0.1.0\n")
        .expect("writes");
    std::fs::create_dir(directory.path().join("templates")).expect("creates");
    for (name, text) in templates {
        std::fs::write(directory.path().join("templates").join(name), text).expect("writes");
    }
    berth_chart::load::load(directory.path()).expect("loads").chart
}

fn options(budget: RenderBudget) -> RenderOptions {
    RenderOptions { release: Release::install("r", "default"), capabilities: offline(None, &[]), lookup: None, budget }
}

/// Renders `chart` on a thread of its own; the error, and how long the render took. The test fails if the render does not end within a minute.
fn render_error(chart: berth_chart::chart::Chart, options: RenderOptions) -> (String, Duration) {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let started = Instant::now();
        let values = Value::Map(berth_go::Map::new());
        let result = render_templates(&chart, &values, &options, &|_, _| {});
        let _ = sender.send((result, started.elapsed()));
    });
    let (result, elapsed) = receiver.recv_timeout(Duration::from_secs(60)).expect("the render ends within a minute");
    (result.expect_err("the render is stopped").to_string(), elapsed)
}

/// A cluster whose `lookup` tells the test that the template reached it (the template then loops).
struct Signal(std::sync::Mutex<mpsc::Sender<()>>);

impl Lookup for Signal {
    fn lookup(&self, _: &str, _: &str, _: &str, _: &str) -> Result<Value, String> {
        let _ = self.0.lock().map(|sender| sender.send(()));
        Ok(Value::Map(berth_go::Map::new()))
    }
}

#[test]
fn a_render_cancelled_from_another_thread_stops_at_its_next_iteration() {
    let endless = format!("{{{{- $_ := lookup \"v1\" \"ConfigMap\" \"default\" \"x\" }}}}\n{ENDLESS}");
    let chart = chart(&[("endless.yaml", &endless)]);
    let cancel = Cancel::new();
    let (reached, looping) = mpsc::channel();
    let canceller = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            looping.recv_timeout(Duration::from_secs(60)).expect("the template reaches its loop");
            cancel.cancel();
            Instant::now()
        })
    };
    let budget = RenderBudget { cancel: Some(cancel), max_render_bytes: u64::MAX, ..RenderBudget::default() };
    let mut options = options(budget);
    options.lookup = Some(Arc::new(Signal(std::sync::Mutex::new(reached))));
    let (error, _) = render_error(chart, options);
    let cancelled_at = canceller.join().expect("the canceller ends");
    let stopped_after = cancelled_at.elapsed();
    assert!(error.starts_with("budget/templates/endless.yaml:2:"), "{error}");
    assert!(error.ends_with("at <$j := until 5000>:\n    render cancelled"), "{error}");
    assert!(stopped_after < Duration::from_secs(2), "stopped {stopped_after:?} after the cancellation");
}

#[test]
fn a_render_past_its_timeout_stops_naming_the_template_and_the_limit() {
    let chart = chart(&[("endless.yaml", ENDLESS)]);
    // Only the timeout bounds this render: the lists `until` builds would exhaust the default byte budget first
    // on a fast machine.
    let budget = RenderBudget {
        timeout: Some(Duration::from_millis(300)),
        max_render_bytes: u64::MAX,
        ..RenderBudget::default()
    };
    let (error, elapsed) = render_error(chart, options(budget));
    assert!(error.starts_with("budget/templates/endless.yaml:1:"), "{error}");
    // The deadline is checked at each step of both ranges: which one is running when it passes is the machine's
    // speed (under load, between two rows of the outer one).
    let stopped_in = |range: &str| {
        error.ends_with(&format!("at <{range} := until 5000>:\n    render timeout: the render ran longer than 300ms"))
    };
    assert!(stopped_in("$j") || stopped_in("$i"), "{error}");
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
}

#[test]
fn a_render_that_builds_too_much_stops_naming_the_template_and_the_limit() {
    let chart = chart(&[("doubling.yaml", DOUBLING)]);
    let budget = RenderBudget { max_render_bytes: 1 << 20, ..RenderBudget::default() };
    let (error, elapsed) = render_error(chart, options(budget));
    assert!(error.starts_with("template: budget/templates/doubling.yaml:2:"), "{error}");
    assert!(error.ends_with("render byte budget exhausted: the render would build more than 1048576 bytes"), "{error}");
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    // Within the default budget the same string doubled 20 times renders.
    let chart = self::chart(&[("doubling.yaml", &DOUBLING.replace("40", "20"))]);
    let values = Value::Map(berth_go::Map::new());
    let rendered = render_templates(&chart, &values, &options(RenderBudget::default()), &|_, _| {}).expect("renders");
    assert_eq!(rendered["budget/templates/doubling.yaml"].trim().len(), 1 << 20);
}
