//! `helm search repo`: the charts of the configured repositories' cached indexes matched against a keyword and
//! ranked as Helm 4.1.4 ranks them (pkg/cmd/search/search.go, pkg/cmd/search_repo.go).
//!
//! Each chart version is one searchable line: `name \v repo/name \v description \v keywords`. A match scores
//! the number of separators before it (0 in the name, 1 in `repo/name`, 2 in the description, 3 in the
//! keywords); results sort by score, then name, then newest version first. A version constraint (`>0.0.0` by
//! default, `>0.0.0-0` with `--devel`) then keeps the newest matching version of each chart, or every matching
//! version with `--versions`.
//!
//! Pure: indexes in, results out; reading the repository files is the caller's.

use berth_source::index::{ChartVersion, IndexFile};
use berth_sprig::semver::{Constraints, Version};
use std::cmp::Ordering;

/// Helm's `searchMaxScore`: matches scoring this or more are dropped.
const MAX_SCORE: usize = 25;

/// Separates the fields of a searchable line (Helm's `sep`).
const SEPARATOR: char = '\u{b}';

/// One chart version found.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    /// `repo/chart`.
    pub name: String,
    pub score: usize,
    pub chart: ChartVersion,
}

impl SearchResult {
    /// The chart's `appVersion`.
    pub fn app_version(&self) -> &str {
        self.text("appVersion")
    }

    /// The chart's `description`.
    pub fn description(&self) -> &str {
        self.text("description")
    }

    fn text(&self, field: &str) -> &str {
        self.chart.raw.get(field).and_then(serde_json::Value::as_str).unwrap_or_default()
    }
}

/// Why a search could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// A `--regexp` that does not compile, in Go's words (`error parsing regexp: ...`).
    #[error("{0}")]
    Regex(String),
    #[error("an invalid version/constraint format: {0}")]
    Constraint(String),
}

/// What to search for and what to keep.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// The keywords, joined with spaces; `None` lists every chart.
    pub keyword: Option<String>,
    /// `-r`: the keyword is a regular expression (matched as written, case-sensitive, as Go's `regexp`).
    pub regexp: bool,
    /// `-l/--versions`: every matching version, not only the newest.
    pub versions: bool,
    /// `--devel`: pre-releases too (ignored with `--version`).
    pub devel: bool,
    /// `--version`: a semver constraint.
    pub version: Option<String>,
}

/// A search index over repositories (Helm's `search.Index` with every version added, as `search repo` always
/// adds them).
#[derive(Debug, Clone, Default)]
pub struct SearchIndex {
    /// (`repo/chart`, searchable line, chart version), in repository order then index order.
    entries: Vec<(String, String, ChartVersion)>,
}

impl SearchIndex {
    /// Adds a repository's index under its name.
    pub fn add_repository(&mut self, repository: &str, index: &IndexFile) {
        for (name, versions) in &index.entries {
            let full_name = format!("{repository}/{name}");
            for version in versions {
                let keywords: Vec<&str> = version
                    .raw
                    .get("keywords")
                    .and_then(serde_json::Value::as_array)
                    .map(|keywords| keywords.iter().filter_map(serde_json::Value::as_str).collect())
                    .unwrap_or_default();
                let description = version.raw.get("description").and_then(serde_json::Value::as_str);
                let line = [
                    version.name.as_str(),
                    &format!("{repository}/{}", version.name),
                    description.unwrap_or_default(),
                    &keywords.join(" "),
                ]
                .join(&SEPARATOR.to_string());
                self.entries.push((full_name.clone(), line, version.clone()));
            }
        }
    }

    /// `search repo`: the matches (every chart without a keyword), ranked, filtered by the version constraint.
    ///
    /// # Errors
    /// [`SearchError`] for a regular expression or constraint that does not parse.
    pub fn search(&self, options: &SearchOptions) -> Result<Vec<SearchResult>, SearchError> {
        let mut results = match &options.keyword {
            None => self.all(),
            Some(keyword) if options.regexp => self.search_regexp(keyword)?,
            Some(keyword) => self.search_literal(keyword),
        };
        results.sort_by(compare);
        apply_constraint(results, options)
    }

    fn all(&self) -> Vec<SearchResult> {
        self.entries
            .iter()
            .map(|(name, _, chart)| SearchResult { name: name.clone(), score: 0, chart: chart.clone() })
            .collect()
    }

    /// `SearchLiteral`: case-insensitive substring.
    fn search_literal(&self, term: &str) -> Vec<SearchResult> {
        let term = term.to_lowercase();
        self.matches(|line| line.to_lowercase().find(&term).map(|at| (at, line.to_lowercase())))
    }

    /// `SearchRegexp`: the first match of the expression.
    fn search_regexp(&self, expression: &str) -> Result<Vec<SearchResult>, SearchError> {
        // Go's `regexp` syntax and errors (berth-go's translation), as Helm compiles the expression.
        let matcher = berth_go::regexp::compile(expression).map_err(SearchError::Regex)?;
        Ok(self.matches(|line| matcher.find_all(line, 1).first().map(|(start, _)| (*start, line.to_string()))))
    }

    /// The entries whose line `find` matches (at a byte offset of the line it returns) below the score limit.
    fn matches(&self, find: impl Fn(&str) -> Option<(usize, String)>) -> Vec<SearchResult> {
        self.entries
            .iter()
            .filter_map(|(name, line, chart)| {
                let (at, matched_line) = find(line)?;
                let score = score(at, &matched_line);
                (score < MAX_SCORE).then(|| SearchResult { name: name.clone(), score, chart: chart.clone() })
            })
            .collect()
    }
}

/// `calcScore`: how many separators stand before the match.
fn score(at: usize, line: &str) -> usize {
    line.match_indices(SEPARATOR).take_while(|(position, _)| at > *position).count()
}

/// `scoreSorter.Less`: lower score, then name; the same chart's versions newest first (a version that does not
/// parse sorts first, as Helm's comparison answers "less" for it).
fn compare(first: &SearchResult, second: &SearchResult) -> Ordering {
    first.score.cmp(&second.score).then_with(|| {
        if first.name != second.name {
            return first.name.cmp(&second.name);
        }
        match (Version::parse(&first.chart.version), Version::parse(&second.chart.version)) {
            (Ok(a), Ok(b)) => b.precedence(&a),
            _ => Ordering::Less,
        }
    })
}

/// `applyConstraint` after `setupSearchedVersion`: `--version`, else `>0.0.0-0` with `--devel`, else
/// `>0.0.0`; the first (newest) accepted version of each chart unless `--versions`.
fn apply_constraint(results: Vec<SearchResult>, options: &SearchOptions) -> Result<Vec<SearchResult>, SearchError> {
    let text = match options.version.as_deref().filter(|version| !version.is_empty()) {
        Some(version) => version,
        None if options.devel => ">0.0.0-0",
        None => ">0.0.0",
    };
    let constraint = Constraints::parse(text).map_err(SearchError::Constraint)?;
    let mut found = std::collections::HashSet::new();
    let mut kept = Vec::new();
    for result in results {
        if !options.versions && found.contains(&result.name) {
            continue;
        }
        let Ok(version) = Version::parse(&result.chart.version) else { continue };
        if constraint.check(&version) {
            found.insert(result.name.clone());
            kept.push(result);
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = r#"apiVersion: v1
entries:
  nginx:
  - name: nginx
    version: 2.0.0-rc.1
    appVersion: "1.27"
    description: A web server
    keywords: [http, proxy]
  - name: nginx
    version: 1.2.0
    appVersion: "1.26"
    description: A web server
    keywords: [http, proxy]
  - name: nginx
    version: 1.1.0
    description: A web server
  proxy-tools:
  - name: proxy-tools
    version: 0.1.0
    description: Tools for nginx
  cache:
  - name: cache
    version: 3.0.0
    description: Caches
    keywords: [nginx]
"#;

    fn index() -> SearchIndex {
        let mut index = SearchIndex::default();
        index.add_repository("web", &IndexFile::parse(INDEX.as_bytes(), "web").unwrap());
        index
    }

    fn found(options: SearchOptions) -> Vec<(String, String, usize)> {
        index()
            .search(&options)
            .unwrap()
            .into_iter()
            .map(|result| (result.name, result.chart.version, result.score))
            .collect()
    }

    fn names(list: &[(&str, &str, usize)]) -> Vec<(String, String, usize)> {
        list.iter().map(|(name, version, score)| (name.to_string(), version.to_string(), *score)).collect()
    }

    #[test]
    fn matches_rank_by_where_they_are_found() {
        let keyword = |text: &str| SearchOptions { keyword: Some(text.to_string()), ..SearchOptions::default() };
        // Name first, then description (2), then keywords (3); the newest stable version of each.
        assert_eq!(
            found(keyword("NGINX")),
            names(&[("web/nginx", "1.2.0", 0), ("web/proxy-tools", "0.1.0", 2), ("web/cache", "3.0.0", 3)])
        );
        assert_eq!(found(keyword("web/c")), names(&[("web/cache", "3.0.0", 1)]));
        let devel = SearchOptions { devel: true, ..keyword("nginx") };
        assert_eq!(found(devel)[0], ("web/nginx".to_string(), "2.0.0-rc.1".to_string(), 0));
        let versions = SearchOptions { versions: true, ..keyword("web server") };
        assert_eq!(found(versions), names(&[("web/nginx", "1.2.0", 2), ("web/nginx", "1.1.0", 2)]));
        let constrained = SearchOptions { version: Some("~1.1".to_string()), ..keyword("nginx") };
        assert_eq!(found(constrained)[0], ("web/nginx".to_string(), "1.1.0".to_string(), 0));
        let regexp = SearchOptions { regexp: true, ..keyword("^pro") };
        assert_eq!(found(regexp), names(&[("web/proxy-tools", "0.1.0", 0)]));
        assert_eq!(found(SearchOptions::default()).len(), 3, "without a keyword, every chart's newest version");
        assert!(index().search(&SearchOptions { regexp: true, ..keyword("(") }).is_err());
        let invalid = index().search(&SearchOptions { version: Some("xx".to_string()), ..keyword("nginx") });
        assert!(invalid.unwrap_err().to_string().starts_with("an invalid version/constraint format: "));
    }
}
