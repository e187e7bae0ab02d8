//! `helm search hub`: charts found by a hub's Monocular-compatible search API, as Helm 4.1.4 asks for them and
//! reads the answer (internal/monocular: `Client.Search`; pkg/cmd/search_hub.go: `newHubSearchWriter`).
//!
//! Helm sends `GET {endpoint}/api/chartsvc/v1/charts/search?q={keywords}` (the endpoint's path joined with the
//! API's, any query of the endpoint replaced) and takes a 200 answer's `data` list. Artifact Hub serves that API
//! for Monocular's old clients; its results carry `artifactHub.packageUrl`, the chart's page, which Helm shows in
//! place of the Monocular link `{endpoint}/charts/{id}`.
//!
//! Go's `encoding/json` decodes the answer forgivingly, and so does berth: field names match case-insensitively,
//! a field of the wrong type or `null` is left empty, text after the first JSON value is ignored, invalid UTF-8
//! becomes U+FFFD. Helm reads the body without a bound; berth stops at [`SEARCH_LIMIT`], so a hostile endpoint
//! cannot grow its memory.
//!
//! [`search_url`] and [`parse_answer`] are pure; [`search`] is the one request.

use berth_source::http::{BodyLimit, FetchError, GetRequest, HttpClient, NoProgress};
use serde_json::Value;

/// `--endpoint`'s default (Helm's).
pub const DEFAULT_ENDPOINT: &str = "https://hub.helm.sh";

/// monocular's `SearchPath`.
const SEARCH_PATH: &str = "api/chartsvc/v1/charts/search";

/// A search answer: Artifact Hub answers a page of results, tens of KiB; a Monocular instance answers every match,
/// a few MiB for a whole public catalogue. 32 MiB is several times that and what a parse into memory affords.
pub const SEARCH_LIMIT: BodyLimit = BodyLimit::of("hub search answer", 32 << 20);

/// One chart found, as `helm search hub` prints it (`hubChartElement`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HubChart {
    /// The chart's page: Artifact Hub's `packageUrl`, else `{endpoint}/charts/{id}`.
    pub url: String,
    /// The latest version's `version` and `app_version`.
    pub version: String,
    pub app_version: String,
    pub description: String,
    /// The chart repository's URL and name.
    pub repository_url: String,
    pub repository_name: String,
}

/// Why the endpoint cannot be searched (monocular `New`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    /// monocular's `ErrHostnameNotProvided`.
    #[error("no hostname provided")]
    NoHostname,
    #[error("parse {endpoint:?}: {reason}")]
    Parse { endpoint: String, reason: String },
}

/// Why a hub search failed, in Helm's words (search_hub.go `run`).
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error("unable to create connection to {endpoint:?}")]
    Connection {
        endpoint: String,
        #[source]
        source: EndpointError,
    },
    /// Helm prints this without its cause (the cause is a debug log line).
    #[error("unable to perform search against {endpoint:?}")]
    Search {
        endpoint: String,
        #[source]
        source: FetchError,
    },
}

/// The search request's URL for `endpoint` and `keywords` (`Client.Search`: the path `path.Join`ed, the query
/// `q=` and `url.QueryEscape`).
///
/// # Errors
/// [`EndpointError`] for an endpoint without a host (`validate`).
pub fn search_url(endpoint: &str, keywords: &str) -> Result<String, EndpointError> {
    let mut url = match url::Url::parse(endpoint) {
        Ok(url) => url,
        // Go parses a URL without a scheme as a bare path, which has no host.
        Err(url::ParseError::RelativeUrlWithoutBase | url::ParseError::EmptyHost) => {
            return Err(EndpointError::NoHostname);
        }
        Err(error) => return Err(EndpointError::Parse { endpoint: endpoint.to_string(), reason: error.to_string() }),
    };
    if url.host_str().is_none_or(str::is_empty) {
        return Err(EndpointError::NoHostname);
    }
    let path = berth_go::path::clean(&format!("{}/{SEARCH_PATH}", url.path()));
    url.set_path(&path);
    url.set_query(Some(&format!("q={}", berth_template::url_query_escape(keywords))));
    Ok(url.to_string())
}

/// The charts of a search answer's body (`json.NewDecoder(body).Decode` into `searchResponse`, its error
/// ignored as Helm ignores it): nothing when the body is no JSON.
pub fn parse_answer(body: &[u8], endpoint: &str) -> Vec<HubChart> {
    let text = String::from_utf8_lossy(body);
    let first = serde_json::Deserializer::from_str(&text).into_iter::<Value>().next();
    let Some(Ok(answer)) = first else { return Vec::new() };
    let Some(Value::Array(results)) = field(&answer, "data") else { return Vec::new() };
    results.iter().map(|result| chart(result, endpoint)).collect()
}

/// One `SearchResult` as `newHubSearchWriter` reads it.
fn chart(result: &Value, endpoint: &str) -> HubChart {
    let text = |path: &[&str]| -> String {
        let mut value = Some(result);
        for name in path {
            value = value.and_then(|value| field(value, name));
        }
        value.and_then(Value::as_str).unwrap_or_default().to_string()
    };
    let package_url = text(&["artifactHub", "packageUrl"]);
    // Backwards compatibility for Monocular: the endpoint as given, not cleaned.
    let url = if package_url.is_empty() { format!("{endpoint}/charts/{}", text(&["id"])) } else { package_url };
    let latest = |name: &str| text(&["relationships", "latestChartVersion", "data", name]);
    HubChart {
        url,
        version: latest("version"),
        app_version: latest("app_version"),
        description: text(&["attributes", "description"]),
        repository_url: text(&["attributes", "repo", "url"]),
        repository_name: text(&["attributes", "repo", "name"]),
    }
}

/// An object's field as `encoding/json` matches a struct field: the exact name, else any name equal to it
/// case-insensitively; nothing for a value that is no object.
fn field<'a>(value: &'a Value, name: &str) -> Option<&'a Value> {
    let object = value.as_object()?;
    object.get(name).or_else(|| object.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value))
}

/// `helm search hub KEYWORDS --endpoint ENDPOINT`: the charts the hub found.
///
/// # Errors
/// [`HubError`]: an endpoint without a host, or a request that failed (unreachable, not 200, a body over
/// [`SEARCH_LIMIT`]).
pub async fn search(client: &HttpClient, endpoint: &str, keywords: &str) -> Result<Vec<HubChart>, HubError> {
    let url = search_url(endpoint, keywords)
        .map_err(|source| HubError::Connection { endpoint: endpoint.to_string(), source })?;
    let request = GetRequest { url: &url, limit: SEARCH_LIMIT, ..GetRequest::default() };
    let body = client
        .get(&request, &NoProgress)
        .await
        .map_err(|source| HubError::Search { endpoint: endpoint.to_string(), source })?;
    Ok(parse_answer(&body, endpoint))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_is_the_one_helm_sends() {
        // (endpoint, keywords, URL or error)
        let table: [(&str, &str, Result<&str, EndpointError>); 7] = [
            ("https://hub.helm.sh", "nginx", Ok("https://hub.helm.sh/api/chartsvc/v1/charts/search?q=nginx")),
            (
                "http://127.0.0.1:8080/base/",
                "web server~x*",
                Ok("http://127.0.0.1:8080/base/api/chartsvc/v1/charts/search?q=web+server~x%2A"),
            ),
            ("http://h/a/../b?x=1", "", Ok("http://h/b/api/chartsvc/v1/charts/search?q=")),
            ("hub.helm.sh", "x", Err(EndpointError::NoHostname)),
            ("localhost:8080", "x", Err(EndpointError::NoHostname)),
            ("file:///tmp/hub", "x", Err(EndpointError::NoHostname)),
            ("", "x", Err(EndpointError::NoHostname)),
        ];
        for (endpoint, keywords, expected) in table {
            assert_eq!(search_url(endpoint, keywords), expected.map(str::to_string), "{endpoint}");
        }
    }

    #[test]
    fn answers_are_read_as_encoding_json_reads_them() {
        let body = br#"{"data": [
            {"id": "stable/nginx", "attributes": {"description": "A web server", "repo": {"name": "stable",
             "url": "https://charts.example"}}, "relationships": {"latestChartVersion": {"data": {"version":
             "1.2.0", "app_version": "1.27", "created": "2024-01-01T00:00:00Z"}}}},
            {"ID": "x/y", "artifactHub": {"packageUrl": "https://artifacthub.io/packages/helm/x/y"},
             "attributes": {"Description": 7, "repo": null}},
            "not an object"
        ]} trailing text"#;
        let charts = parse_answer(body, "http://hub");
        assert_eq!(charts.len(), 3);
        assert_eq!(
            charts[0],
            HubChart {
                url: "http://hub/charts/stable/nginx".into(),
                version: "1.2.0".into(),
                app_version: "1.27".into(),
                description: "A web server".into(),
                repository_url: "https://charts.example".into(),
                repository_name: "stable".into(),
            }
        );
        assert_eq!(charts[1].url, "https://artifacthub.io/packages/helm/x/y");
        assert_eq!(charts[1].description, "");
        assert_eq!(charts[2].url, "http://hub/charts/");
        for body in [&b"not json"[..], b"{\"data\": {}}", b"[]", b""] {
            assert!(parse_answer(body, "http://hub").is_empty());
        }
    }
}
