//! Which releases `list` shows and in what order: Helm 4's `action.List.Run` (pkg/action/list.go) over the latest
//! revision of each release: the name filter (a regular expression), the state mask (`--deployed`, `--failed`,
//! ...; all states when none is asked), the label selector (`-l`, Kubernetes' `labels.Parse` syntax, over the
//! storage's labels, Helm's own included), the sort (name, or date with `-d`; `-r` reverses) and the page
//! (`--offset`, `-m`). Pure: records in, records out.

use super::record::{Release, ReleaseStatus};
use crate::object::label_selector::LabelSelector;
use std::collections::BTreeMap;

/// The states `list` shows (Helm's `ListStates`); empty means all but `unknown`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct States {
    pub deployed: bool,
    pub failed: bool,
    pub pending: bool,
    pub superseded: bool,
    pub uninstalled: bool,
    pub uninstalling: bool,
}

impl States {
    /// Whether no state was asked for (Helm's mask is then `ListAll`).
    fn is_all(&self) -> bool {
        *self == States::default()
    }

    /// `--superseded` alone: every superseded revision is listed, not only the latest of each release.
    pub fn is_superseded_only(&self) -> bool {
        *self == States { superseded: true, ..States::default() }
    }

    fn admits(&self, status: ReleaseStatus) -> bool {
        if self.is_all() {
            return status != ReleaseStatus::Unknown;
        }
        match status {
            ReleaseStatus::Deployed => self.deployed,
            ReleaseStatus::Failed => self.failed,
            ReleaseStatus::PendingInstall | ReleaseStatus::PendingUpgrade | ReleaseStatus::PendingRollback => {
                self.pending
            }
            ReleaseStatus::Superseded => self.superseded,
            ReleaseStatus::Uninstalled => self.uninstalled,
            ReleaseStatus::Uninstalling => self.uninstalling,
            ReleaseStatus::Unknown => false,
        }
    }
}

/// The order of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sort {
    /// `-d`: by the time of the last deployment.
    pub by_date: bool,
    /// `-r`.
    pub reverse: bool,
}

/// What `list` asks for.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// `-f`: a regular expression the name must match (Go's syntax).
    pub filter: Option<String>,
    pub states: States,
    /// `-l`: a label selector.
    pub selector: Option<String>,
    pub sort: Sort,
    /// `-m`: at most this many (0: no limit of its own).
    pub max: usize,
    /// `--offset`: skip this many first.
    pub offset: usize,
}

/// Why a query cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    /// Go's regexp error text.
    #[error("{0}")]
    Filter(String),
    /// The label selector's error, as Kubernetes words it.
    #[error("{0}")]
    Selector(String),
}

/// The releases `query` shows of `releases` (the latest revision of each release, or with `--superseded` alone
/// every revision), filtered, sorted and paged as Helm's `List.Run` does.
///
/// # Errors
/// [`ListError`] when the filter or the selector does not parse.
pub fn select(mut releases: Vec<Release>, query: &ListQuery) -> Result<Vec<Release>, ListError> {
    let total = releases.len();
    if let Some(filter) = query.filter.as_deref().filter(|filter| !filter.is_empty()) {
        let pattern = berth_go::regexp::compile(filter).map_err(ListError::Filter)?;
        releases.retain(|release| pattern.is_match(&release.name));
    }
    releases.retain(|release| query.states.admits(release.info.status));
    if let Some(selector) = query.selector.as_deref().filter(|selector| !selector.trim().is_empty()) {
        let selector = LabelSelector::parse(selector).map_err(ListError::Selector)?;
        releases.retain(|release| selector.matches(&storage_labels(release)));
    }
    sort(&mut releases, query.sort);
    if query.offset >= releases.len() {
        return Ok(Vec::new());
    }
    // Helm bounds the page by the count before filtering (`len(results)`), then by `--max`.
    let limit = if query.max > 0 && query.max < total { query.max } else { total };
    let last = (query.offset + limit).min(releases.len());
    Ok(releases.drain(query.offset..last).collect())
}

/// Helm's sorters: by name; `-r` by name descending; `-d` by date ascending (`SortByDate`), `-d -r` descending.
fn sort(releases: &mut [Release], sort: Sort) {
    let by_name = |a: &Release, b: &Release| a.name.cmp(&b.name);
    let by_date = |a: &Release, b: &Release| {
        let time = |release: &Release| release.info.last_deployed.map(|time| time.timestamp);
        time(a).cmp(&time(b)).then_with(|| by_name(a, b))
    };
    match (sort.by_date, sort.reverse) {
        (false, false) => releases.sort_by(by_name),
        (false, true) => releases.sort_by(|a, b| by_name(b, a)),
        (true, false) => releases.sort_by(by_date),
        (true, true) => releases.sort_by(|a, b| by_date(b, a)),
    }
}

/// The labels of a release's storage object as Helm's `List` hands them to the selector: the release's own and
/// the storage's (`name`, `owner`, `status`, `version`, `createdAt`).
fn storage_labels(release: &Release) -> BTreeMap<String, String> {
    let mut labels = release.labels.clone();
    labels.insert("name".to_string(), release.name.clone());
    labels.insert("owner".to_string(), "helm".to_string());
    labels.insert("status".to_string(), release.info.status.to_string());
    labels.insert("version".to_string(), release.version.to_string());
    if let Some(created_at) = release.created_at {
        labels.insert("createdAt".to_string(), created_at.as_second().to_string());
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::record::{HelmTime, Info};

    fn release(name: &str, status: ReleaseStatus, deployed: &str, labels: &[(&str, &str)]) -> Release {
        Release {
            name: name.to_string(),
            namespace: "default".to_string(),
            version: 1,
            info: Info { status, last_deployed: deployed.parse::<HelmTime>().ok(), ..Info::default() },
            labels: labels.iter().map(|(key, value)| (key.to_string(), value.to_string())).collect(),
            ..Release::default()
        }
    }

    fn names(releases: &[Release]) -> Vec<&str> {
        releases.iter().map(|release| release.name.as_str()).collect()
    }

    fn releases() -> Vec<Release> {
        vec![
            release("web", ReleaseStatus::Deployed, "2026-01-03T00:00:00Z", &[("team", "a")]),
            release("api", ReleaseStatus::Failed, "2026-01-01T00:00:00Z", &[("team", "b")]),
            release("db", ReleaseStatus::Uninstalled, "2026-01-02T00:00:00Z", &[]),
            release("queue", ReleaseStatus::PendingUpgrade, "2026-01-04T00:00:00Z", &[("team", "a")]),
        ]
    }

    #[test]
    fn queries_select_sort_and_page_as_helm_list_does() {
        let query = |edit: &dyn Fn(&mut ListQuery)| {
            let mut query = ListQuery::default();
            edit(&mut query);
            names(&select(releases(), &query).expect("selects")).join(" ")
        };
        // (what the query asks, the names it shows)
        type Edit<'a> = &'a dyn Fn(&mut ListQuery);
        let table: [(Edit, &str); 12] = [
            (&|_| {}, "api db queue web"),
            (&|q| q.sort.reverse = true, "web queue db api"),
            (&|q| q.sort.by_date = true, "api db web queue"),
            (&|q| q.sort = Sort { by_date: true, reverse: true }, "queue web db api"),
            (&|q| q.states.deployed = true, "web"),
            (&|q| q.states.pending = true, "queue"),
            (&|q| (q.states.failed, q.states.uninstalled) = (true, true), "api db"),
            (&|q| q.filter = Some("^(w|q)".to_string()), "queue web"),
            (&|q| q.selector = Some("team=a".to_string()), "queue web"),
            (&|q| q.selector = Some("team notin (a),status!=uninstalled".to_string()), "api"),
            (&|q| (q.max, q.offset) = (2, 1), "db queue"),
            (&|q| q.offset = 9, ""),
        ];
        for (edit, expected) in table {
            assert_eq!(query(edit), expected);
        }
        let bad = ListQuery { selector: Some("team in a".to_string()), ..ListQuery::default() };
        assert!(select(releases(), &bad).is_err());
        let bad = ListQuery { filter: Some("(".to_string()), ..ListQuery::default() };
        assert!(matches!(select(releases(), &bad), Err(ListError::Filter(_))));
    }
}
