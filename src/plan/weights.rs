//! Weights: seed 001's `helm.sh/weight` and Argo CD's `argocd.argoproj.io/sync-wave`, one scale.
//!
//! A weight is a decimal integer (`"-1"`, `"0"`, `"10"`; a leading `+` and surrounding spaces are accepted, as
//! Go's `strconv.Atoi` accepts the sign). An object without either annotation has weight 0, as in Argo CD and
//! as Helm's hook weights default. Every object waits until all objects of lower weights are ready.
//!
//! Both annotations on one object must agree: a chart written for Helm and Argo CD at once means one wave by
//! both, and two different numbers have no single reading, so they are rejected rather than one silently
//! winning. An object whose weight does not parse is reported and left out of weight ordering (it gets no
//! weight edges, so the error cannot cause a spurious cycle).
//!
//! Edges: objects are grouped by weight; the objects of each weight wait for one gate over the objects of the
//! next lower weight (transitively, all lower weights). That is one edge per object plus one per member:
//! linear, where "every object waits for every lower object" would be quadratic.

use super::annotations::{SYNC_WAVE, WEIGHT};
use super::error::PlanProblem;
use super::graph::{EdgeKind, Gate, GraphBuilder};
use super::reason::WeightAnnotation;
use super::set::ObjectSet;
use std::collections::BTreeMap;
use std::num::IntErrorKind;

/// An object's declared weight and the annotation that declared it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weight {
    pub value: i64,
    pub annotation: WeightAnnotation,
}

/// Reads every object's weight and adds the weight edges; returns each object's declared weight (`None` for
/// the default 0 and for an invalid weight).
pub(super) fn add_weight_edges(
    set: &ObjectSet,
    graph: &mut GraphBuilder,
    problems: &mut Vec<PlanProblem>,
) -> Vec<Option<Weight>> {
    let mut declared = Vec::with_capacity(set.len());
    let mut levels: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for index in 0..set.len() {
        match read_weight(set, index) {
            Ok(weight) => {
                levels.entry(weight.map_or(0, |weight| weight.value)).or_default().push(index);
                declared.push(weight);
            }
            Err(found) => {
                problems.extend(found);
                declared.push(None);
            }
        }
    }
    let levels: Vec<(i64, Vec<usize>)> = levels.into_iter().collect();
    for pair in levels.windows(2) {
        if let [(lower, lower_members), (_, members)] = pair {
            let gate = graph.add_gate(Gate::Weight(*lower), lower_members);
            for member in members {
                graph.add_edge(*member, gate, EdgeKind::Weight);
            }
        }
    }
    declared
}

fn read_weight(set: &ObjectSet, index: usize) -> Result<Option<Weight>, Vec<PlanProblem>> {
    let invalid = |annotation: &'static str, message: String| PlanProblem::InvalidAnnotation {
        index,
        origin: set.origin(index),
        annotation,
        message,
    };
    let read = |key: &'static str| {
        set.annotation(index, key)
            .and_then(|text| text.map(parse_weight).transpose())
            .map_err(|message| invalid(key, message))
    };
    match (read(WEIGHT), read(SYNC_WAVE)) {
        (Ok(Some(helm)), Ok(Some(argo))) if helm != argo => Err(vec![invalid(
            WEIGHT,
            format!(
                "`{helm}` disagrees with `{SYNC_WAVE}: \"{argo}\"`; both are read as one weight: remove one or make them equal"
            ),
        )]),
        (Ok(Some(value)), Ok(_)) => Ok(Some(Weight { value, annotation: WeightAnnotation::Helm })),
        (Ok(None), Ok(Some(value))) => Ok(Some(Weight { value, annotation: WeightAnnotation::ArgoSyncWave })),
        (Ok(None), Ok(None)) => Ok(None),
        (helm, argo) => Err([helm.err(), argo.err()].into_iter().flatten().collect()),
    }
}

/// Parses a weight.
///
/// # Errors
/// A message saying why `text` is not a weight.
pub fn parse_weight(text: &str) -> Result<i64, String> {
    let trimmed = text.trim();
    trimmed.parse::<i64>().map_err(|error| match error.kind() {
        IntErrorKind::Empty => "the value is empty; expected an integer such as \"-1\" or \"5\"".to_string(),
        IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => {
            format!("`{trimmed}` is out of range (a 64-bit integer)")
        }
        _ => format!("`{trimmed}` is not an integer; expected one such as \"-1\" or \"5\""),
    })
}
