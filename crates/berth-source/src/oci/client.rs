//! The OCI distribution API as Helm's registry client uses it (through oras-go): ping, tag listing, manifests and
//! blobs fetched with their digests checked, blobs and manifests pushed, and authentication as the registry asks
//! for it on a 401 (basic, or a bearer token from the realm it names), with the credentials from the command
//! line or from Helm's registry configuration.
//!
//! Every answer is read against a bound, as oras-go bounds it for Helm (registry/remote: `MaxMetadataBytes`,
//! auth `maxResponseBytes`, errutil `maxErrorBytes`), enforced on the stream and not only against
//! `Content-Length`: manifests and tag pages 4 MiB, token answers 1 MiB, error bodies their first 64 KiB, blobs
//! the size their descriptor declares (one byte more ends the read) and then their digest.

use super::auth::{Challenge, error_text, parse_challenge, repository_scope, token_from_response};
use super::manifest::{
    CHART_LAYER_MEDIA_TYPE, CONFIG_MEDIA_TYPE, ChartArtifact, Descriptor, IMAGE_INDEX_MEDIA_TYPE,
    IMAGE_MANIFEST_MEDIA_TYPE, LEGACY_CHART_LAYER_MEDIA_TYPE, Manifest, sha256_digest,
};
use super::reference::Reference;
use crate::http::{
    BodyLimit, CHART_LIMIT, Credentials, ERROR_BODY_LIMIT, FetchError, HttpClient, NoProgress, Progress, read_body,
    read_prefix,
};
use base64::Engine as _;
use reqwest::{Method, RequestBuilder, Response, StatusCode};
use std::collections::HashMap;
use std::sync::Mutex;

/// oras-go's `defaultMaxMetadataBytes`, its limit on a manifest.
const MANIFEST_LIMIT: BodyLimit = BodyLimit::of("manifest", 4 << 20);
/// The same limit on one page of a tag list, as oras-go reads it.
const TAG_PAGE_LIMIT: BodyLimit = BodyLimit::of("tag list", 4 << 20);
/// A chart's config blob is its `Chart.yaml` as JSON: metadata, bounded as a manifest is.
const CONFIG_LIMIT: BodyLimit = BodyLimit::of("chart config", 4 << 20);
/// A token service's answer: oras-go reads 128 KiB of it; a token of a megabyte is still accepted.
const TOKEN_LIMIT: BodyLimit = BodyLimit::of("token service's answer", 1 << 20);
/// Pages of tags read at most, and their bytes in all: a registry that pages without end stops here.
const MAX_TAG_PAGES: usize = 1000;
const TAG_LIST_TOTAL: u64 = 32 << 20;

/// Why a registry operation failed. The registry's refusals are worded as oras-go words them for Helm
/// (registry/remote/errcode `ErrorResponse.Error`: `GET "URL": response status code 401: ...`, the URL quoted as
/// Go's `%q` quotes it), and so is an operation of a copy (oras-go's `CopyError`).
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// A request that got no answer, as Go's `url.Error` words it (`Get "URL": REASON`, the method as net/http
    /// writes it there).
    #[error("{} {:?}: {}", go_method(.method), .failure.url(), go_reason(.failure))]
    Request { method: String, failure: FetchError },
    /// 401 or 403 after authenticating as the registry asked.
    #[error("{method} {url:?}: response status code {code}: {message}")]
    Denied { method: String, url: String, code: u16, message: String, had_credentials: bool, registry: String },
    /// A 401 asking for basic authentication, with no credentials to send (oras-go's auth client:
    /// `ErrBasicCredentialNotFound`, wrapped with the request).
    #[error("{method} {url:?}: basic credential not found")]
    NoCredentials { method: String, url: String, registry: String },
    /// 404: no such repository, tag or blob.
    #[error("{method} {url:?}: response status code 404: {message}")]
    NotFound { method: String, url: String, message: String },
    /// A manifest the registry does not have under that tag or digest (oras-go's `FetchReference`:
    /// `REFERENCE: not found`).
    #[error("{reference}: not found")]
    NoManifest { reference: String },
    /// Any other refusal.
    #[error("{method} {url:?}: response status code {code}: {message}")]
    Status { method: String, url: String, code: u16, message: String },
    /// A step of a copy between Helm's memory store and the registry failed (oras-go's `CopyError`: the step,
    /// and whether the registry was the source or the destination).
    #[error("failed to perform \"{operation}\" on {origin}: {source}")]
    Copy { operation: &'static str, origin: &'static str, source: Box<RegistryError> },
    /// The token a registry's 401 sent for could not be had (oras-go's auth client wraps the token service's
    /// refusal with the request that was refused).
    #[error("{method} {url:?}: {source}")]
    Authorizing { method: String, url: String, source: Box<RegistryError> },
    /// Content whose digest is not the one asked for or announced.
    #[error("digest mismatch for {what}: expected {expected}, got {actual}")]
    DigestMismatch { what: String, expected: String, actual: String },
    /// Content Helm refuses (wrong media types, missing layers, bad JSON).
    #[error("{0}")]
    Invalid(String),
}

impl RegistryError {
    /// The error of a refused request to `url` made for the registry at `registry` (`host[:port]`; a token service
    /// may be elsewhere). The server's message is shown with its control characters escaped and without any of
    /// `secrets` (what the request carried), should the server echo them.
    fn status(
        method: &Method,
        url: &str,
        code: StatusCode,
        body: &[u8],
        had_credentials: bool,
        registry: &str,
        secrets: &[&str],
    ) -> RegistryError {
        let mut message = crate::server_text::escape_controls(&crate::redact::known(&error_text(body), secrets));
        if message.is_empty() {
            // Go's `http.StatusText`, as oras-go words an answer without errors.
            message = code.canonical_reason().unwrap_or_default().to_string();
        }
        let (method, url) = (method.to_string(), crate::redact::urls(url));
        match code.as_u16() {
            401 | 403 => RegistryError::Denied {
                method,
                url,
                code: code.as_u16(),
                message,
                had_credentials,
                registry: registry.to_string(),
            },
            404 => RegistryError::NotFound { method, url, message },
            other => RegistryError::Status { method, url, code: other, message },
        }
    }

    /// The refusal under the steps of a copy that wrap it.
    pub fn root(&self) -> &RegistryError {
        match self {
            RegistryError::Copy { source, .. } | RegistryError::Authorizing { source, .. } => source.root(),
            other => other,
        }
    }

    /// `self` as the failure of `operation` of a copy from (`"source"`) or to (`"destination"`) the registry.
    fn in_copy(self, operation: &'static str, origin: &'static str) -> RegistryError {
        RegistryError::Copy { operation, origin, source: Box::new(self) }
    }
}

/// A connection to one registry.
#[derive(Debug)]
pub struct Registry {
    http: HttpClient,
    base: String,
    host: String,
    credentials: Option<Credentials>,
    /// Authorization headers that worked, by scope (`""` for basic authentication, which covers every scope).
    authorizations: Mutex<HashMap<String, String>>,
}

/// What a chart pull returns (Helm's `PullResult`).
#[derive(Debug, Clone)]
pub struct PulledChart {
    /// `host/repository:tag` (Helm's `Ref`).
    pub reference: String,
    pub manifest_digest: String,
    pub archive: Vec<u8>,
    /// The config blob: the chart's metadata as JSON.
    pub config: Vec<u8>,
    /// Warnings Helm prints (a deprecated layer media type).
    pub warnings: Vec<String>,
}

impl Registry {
    /// A connection to `host` (`host[:port]`), over plain HTTP when `plain_http`.
    pub fn new(http: HttpClient, host: &str, plain_http: bool, credentials: Option<Credentials>) -> Registry {
        let scheme = if plain_http { "http" } else { "https" };
        Registry {
            http,
            base: format!("{scheme}://{host}"),
            host: host.to_string(),
            credentials: credentials
                .filter(|credentials| !credentials.username.is_empty() || !credentials.password.is_empty()),
            authorizations: Mutex::new(HashMap::new()),
        }
    }

    /// The registry's `host[:port]`.
    pub fn host(&self) -> &str {
        &self.host
    }

    fn cached_authorization(&self, scope: &str) -> Option<String> {
        let cache = self.authorizations.lock().ok()?;
        cache.get(scope).or_else(|| cache.get("")).cloned()
    }

    fn remember(&self, scope: &str, header: &str) {
        if let Ok(mut cache) = self.authorizations.lock() {
            cache.insert(scope.to_string(), header.to_string());
        }
    }

    /// Sends a request built by `build`, authenticating once as a 401 asks, and returns the answer whatever its
    /// status.
    async fn send(
        &self,
        method: Method,
        url: &str,
        scope: &str,
        build: impl Fn(RequestBuilder) -> RequestBuilder,
    ) -> Result<Response, RegistryError> {
        let client = self.http.inner();
        let attempt = |authorization: Option<String>| {
            let mut request = build(client.request(method.clone(), url));
            if let Some(authorization) = authorization {
                request = request.header(reqwest::header::AUTHORIZATION, authorization);
            }
            request
        };
        let response = attempt(self.cached_authorization(scope))
            .send()
            .await
            .map_err(|error| request_failed(&method, url, &error))?;
        if response.status() != StatusCode::UNAUTHORIZED {
            return Ok(response);
        }
        let challenge = response
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .and_then(|value| value.to_str().ok())
            .map(parse_challenge);
        let authorization = match challenge {
            Some(Challenge::Basic) => match &self.credentials {
                Some(credentials) => {
                    let encoded = base64::engine::general_purpose::STANDARD
                        .encode(format!("{}:{}", credentials.username, credentials.password));
                    let header = format!("Basic {encoded}");
                    self.remember("", &header);
                    header
                }
                None => {
                    return Err(RegistryError::NoCredentials {
                        method: method.to_string(),
                        url: crate::redact::urls(url),
                        registry: self.host.clone(),
                    });
                }
            },
            Some(Challenge::Bearer { realm, service, scope: asked }) => {
                let scope_text = if asked.is_empty() { scope.to_string() } else { asked };
                let token = self.fetch_token(&realm, &service, &scope_text).await.map_err(|error| {
                    RegistryError::Authorizing {
                        method: method.to_string(),
                        url: crate::redact::urls(url),
                        source: Box::new(error),
                    }
                })?;
                let header = format!("Bearer {token}");
                self.remember(scope, &header);
                header
            }
            _ => return Ok(response),
        };
        attempt(Some(authorization)).send().await.map_err(|error| request_failed(&method, url, &error))
    }

    /// A bearer token from the realm: a GET with `service` and `scope`, with the credentials as basic
    /// authentication when there are any (the distribution token protocol oras speaks by default).
    async fn fetch_token(&self, realm: &str, service: &str, scope: &str) -> Result<String, RegistryError> {
        let mut url = url::Url::parse(realm)
            .map_err(|error| RegistryError::Invalid(format!("invalid token realm {realm:?}: {error}")))?;
        {
            // In the order Go's `url.Values.Encode` writes them: keys sorted, so `scope` before `service`.
            let mut query = url.query_pairs_mut();
            for scope in scope.split(' ').filter(|scope| !scope.is_empty()) {
                query.append_pair("scope", scope);
            }
            if !service.is_empty() {
                query.append_pair("service", service);
            }
        }
        let mut request = self.http.inner().get(url.as_str());
        if let Some(credentials) = &self.credentials {
            request = request.basic_auth(&credentials.username, Some(&credentials.password));
        }
        let response = request.send().await.map_err(|error| request_failed(&Method::GET, realm, &error))?;
        let status = response.status();
        if !status.is_success() {
            let body = read_prefix(response, ERROR_BODY_LIMIT).await;
            return Err(self.refusal(&Method::GET, url.as_str(), status, &body));
        }
        let body = read_body(url.as_str(), response, TOKEN_LIMIT, &NoProgress).await?;
        token_from_response(&body).ok_or_else(|| {
            RegistryError::Invalid(format!(
                "the token server {} answered without a token",
                crate::server_text::escape_controls(&crate::redact::urls(realm))
            ))
        })
    }

    /// Fails unless the answer is one of `expected`.
    async fn expect(
        &self,
        method: &Method,
        url: &str,
        response: Response,
        expected: &[StatusCode],
    ) -> Result<Response, RegistryError> {
        if expected.contains(&response.status()) {
            return Ok(response);
        }
        let status = response.status();
        let body = read_prefix(response, ERROR_BODY_LIMIT).await;
        Err(self.refusal(method, url, status, &body))
    }

    /// [`RegistryError::status`] with this connection's secrets: the password, and every authorization header
    /// sent (a basic one's encoding, a bearer token).
    fn refusal(&self, method: &Method, url: &str, code: StatusCode, body: &[u8]) -> RegistryError {
        let headers: Vec<String> =
            self.authorizations.lock().map(|cache| cache.values().cloned().collect()).unwrap_or_default();
        let mut secrets: Vec<&str> =
            headers.iter().filter_map(|header| header.split_once(' ').map(|(_, credential)| credential)).collect();
        if let Some(credentials) = &self.credentials {
            secrets.push(&credentials.password);
        }
        RegistryError::status(method, url, code, body, self.credentials.is_some(), &self.host, &secrets)
    }

    /// `GET /v2/`: whether the registry lets these credentials in (Helm's login check).
    ///
    /// # Errors
    ///
    /// Unreachable, or refused.
    pub async fn ping(&self) -> Result<(), RegistryError> {
        let url = format!("{}/v2/", self.base);
        let response = self.send(Method::GET, &url, "", |request| request).await?;
        self.expect(&Method::GET, &url, response, &[StatusCode::OK]).await.map(|_| ())
    }

    /// The repository's tags (`GET /v2/NAME/tags/list`, following `Link` pages).
    ///
    /// # Errors
    ///
    /// Unreachable, refused, or an answer that is not a tag list.
    pub async fn tags(&self, repository: &str) -> Result<Vec<String>, RegistryError> {
        let scope = repository_scope(repository, false);
        let mut url = format!("{}/v2/{repository}/tags/list", self.base);
        let mut tags = Vec::new();
        let mut total = 0u64;
        for _ in 0..MAX_TAG_PAGES {
            let response = self.send(Method::GET, &url, &scope, |request| request).await?;
            let response = self.expect(&Method::GET, &url, response, &[StatusCode::OK]).await?;
            let next = response
                .headers()
                .get(reqwest::header::LINK)
                .and_then(|link| link.to_str().ok())
                .and_then(next_link)
                .and_then(|next| crate::url_util::resolve_reference_url(&self.base, &next).ok());
            let body = read_body(&url, response, TAG_PAGE_LIMIT, &NoProgress).await?;
            total += body.len() as u64;
            if total > TAG_LIST_TOTAL {
                let limit = BodyLimit::of("tag list", TAG_LIST_TOTAL);
                return Err(FetchError::TooLarge { url: crate::redact::urls(&url), limit }.into());
            }
            let json: serde_json::Value = serde_json::from_slice(&body)
                .map_err(|error| RegistryError::Invalid(format!("invalid tag list from {url}: {error}")))?;
            tags.extend(
                json.get("tags")
                    .and_then(serde_json::Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(serde_json::Value::as_str)
                    .map(str::to_string),
            );
            match next {
                Some(next) => url = next,
                None => return Ok(tags),
            }
        }
        Ok(tags)
    }

    /// The manifest `reference` points at, its digest checked against the registry's and, when fetched by
    /// digest, against that digest. Returns the bytes and their digest.
    ///
    /// # Errors
    ///
    /// Unreachable, refused, not found, too large, a digest mismatch, or not an image manifest.
    pub async fn manifest(&self, reference: &Reference) -> Result<(Vec<u8>, String), RegistryError> {
        let scope = repository_scope(&reference.repository, false);
        let url = format!("{}/v2/{}/manifests/{}", self.base, reference.repository, reference.manifest_reference());
        let accept = format!("{IMAGE_MANIFEST_MEDIA_TYPE}, {IMAGE_INDEX_MEDIA_TYPE}");
        let response = self
            .send(Method::GET, &url, &scope, |request| request.header(reqwest::header::ACCEPT, accept.as_str()))
            .await?;
        if response.status() == StatusCode::NOT_FOUND {
            return Err(RegistryError::NoManifest { reference: reference.display() });
        }
        let response = self.expect(&Method::GET, &url, response, &[StatusCode::OK]).await?;
        let media_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        let announced =
            response.headers().get("docker-content-digest").and_then(|value| value.to_str().ok()).map(str::to_string);
        let body = read_body(&url, response, MANIFEST_LIMIT, &NoProgress).await?;
        let actual = sha256_digest(&body);
        let expected = if reference.digest.is_empty() { announced } else { Some(reference.digest.clone()) };
        if let Some(expected) = expected
            && expected != actual
        {
            return Err(RegistryError::DigestMismatch {
                what: format!("the manifest of {}", reference.display()),
                expected,
                actual,
            });
        }
        if media_type == IMAGE_INDEX_MEDIA_TYPE {
            return Err(RegistryError::Invalid(format!("{} is an image index, not a chart", reference.display())));
        }
        Ok((body, actual))
    }

    /// A blob, read to the size `descriptor` declares (no further: one byte more is refused, as oras-go's
    /// verifying reader refuses trailing data) and checked against its digest; a descriptor declaring more than
    /// `limit` is refused before the request.
    ///
    /// # Errors
    ///
    /// Unreachable, refused, not found, too large, or a digest or size mismatch.
    pub async fn blob(
        &self,
        repository: &str,
        descriptor: &Descriptor,
        limit: BodyLimit,
        progress: &dyn Progress,
    ) -> Result<Vec<u8>, RegistryError> {
        if descriptor.size > limit.bytes {
            return Err(RegistryError::Invalid(format!(
                "the {} {} declares {} bytes, more than berth's limit of {}",
                limit.what,
                descriptor.digest,
                descriptor.size,
                crate::http::size_text(limit.bytes)
            )));
        }
        let scope = repository_scope(repository, false);
        let url = format!("{}/v2/{repository}/blobs/{}", self.base, descriptor.digest);
        let response = self.send(Method::GET, &url, &scope, |request| request).await?;
        let response = self.expect(&Method::GET, &url, response, &[StatusCode::OK]).await?;
        if let Some(announced) = response.content_length()
            && announced != descriptor.size
        {
            return Err(RegistryError::Invalid(format!(
                "the registry announces {announced} bytes for blob {}, its descriptor declares {}",
                descriptor.digest, descriptor.size
            )));
        }
        let declared = BodyLimit { what: limit.what, bytes: descriptor.size, declared: true };
        let body = read_body(&url, response, declared, progress).await?;
        if body.len() as u64 != descriptor.size {
            return Err(RegistryError::Invalid(format!(
                "blob {} has {} bytes, its descriptor declares {}",
                descriptor.digest,
                body.len(),
                descriptor.size
            )));
        }
        let actual = sha256_digest(&body);
        if actual != descriptor.digest {
            return Err(RegistryError::DigestMismatch {
                what: format!("blob {}", descriptor.digest),
                expected: descriptor.digest.clone(),
                actual,
            });
        }
        Ok(body)
    }

    /// Helm's chart pull (`Client.Pull`): the manifest, the config (Helm's media type required) and the chart
    /// layer (the legacy media type accepted with a warning).
    ///
    /// # Errors
    ///
    /// See [`RegistryError`]; Helm's messages for missing layers.
    pub async fn pull_chart(
        &self,
        reference: &Reference,
        progress: &dyn Progress,
    ) -> Result<PulledChart, RegistryError> {
        let (manifest_bytes, manifest_digest) =
            self.manifest(reference).await.map_err(|error| error.in_copy("FetchReference", "source"))?;
        let manifest = Manifest::parse(&manifest_bytes).map_err(RegistryError::Invalid)?;
        if manifest.config.media_type != CONFIG_MEDIA_TYPE {
            return Err(RegistryError::Invalid(format!("could not load config with mediatype {CONFIG_MEDIA_TYPE}")));
        }
        let mut warnings = Vec::new();
        let chart_layer = manifest
            .layers
            .iter()
            .find(|layer| layer.media_type == CHART_LAYER_MEDIA_TYPE)
            .or_else(|| {
                let legacy = manifest.layers.iter().find(|layer| layer.media_type == LEGACY_CHART_LAYER_MEDIA_TYPE);
                if legacy.is_some() {
                    warnings.push(format!("Warning: chart media type {LEGACY_CHART_LAYER_MEDIA_TYPE} is deprecated"));
                }
                legacy
            })
            .ok_or_else(|| {
                RegistryError::Invalid(format!(
                    "manifest does not contain a layer with mediatype {CHART_LAYER_MEDIA_TYPE}"
                ))
            })?
            .clone();
        let config = self.blob(&reference.repository, &manifest.config, CONFIG_LIMIT, &NoProgress).await?;
        serde_json::from_slice::<serde_json::Value>(&config).map_err(|error| {
            RegistryError::Invalid(format!("invalid chart config in {}: {error}", reference.display()))
        })?;
        let archive = self.blob(&reference.repository, &chart_layer, CHART_LIMIT, progress).await?;
        Ok(PulledChart { reference: reference.display(), manifest_digest, archive, config, warnings })
    }

    /// Uploads a blob unless the registry has it (HEAD, then POST and a monolithic PUT).
    async fn push_blob(&self, repository: &str, descriptor: &Descriptor, data: &[u8]) -> Result<(), RegistryError> {
        let scope = repository_scope(repository, true);
        let head_url = format!("{}/v2/{repository}/blobs/{}", self.base, descriptor.digest);
        let head = self.send(Method::HEAD, &head_url, &scope, |request| request).await?;
        if head.status() == StatusCode::OK {
            return Ok(());
        }
        let start_url = format!("{}/v2/{repository}/blobs/uploads/", self.base);
        let started = self
            .send(Method::POST, &start_url, &scope, |request| request.header(reqwest::header::CONTENT_LENGTH, "0"))
            .await?;
        let started = self.expect(&Method::POST, &start_url, started, &[StatusCode::ACCEPTED]).await?;
        let location =
            started.headers().get(reqwest::header::LOCATION).and_then(|value| value.to_str().ok()).ok_or_else(
                || RegistryError::Invalid(format!("the registry {} started an upload without a location", self.host)),
            )?;
        let mut upload = url::Url::parse(
            &crate::url_util::resolve_reference_url(&self.base, location).map_err(RegistryError::Invalid)?,
        )
        .map_err(|error| RegistryError::Invalid(format!("invalid upload location {location:?}: {error}")))?;
        upload.query_pairs_mut().append_pair("digest", &descriptor.digest);
        let upload = upload.to_string();
        let body = data.to_vec();
        let put = self
            .send(Method::PUT, &upload, &scope, |request| {
                request.header(reqwest::header::CONTENT_TYPE, "application/octet-stream").body(body.clone())
            })
            .await?;
        self.expect(&Method::PUT, &upload, put, &[StatusCode::CREATED]).await.map(|_| ())
    }

    /// Helm's chart push: the blobs, then the manifest under `reference`'s tag. Returns the manifest's digest.
    ///
    /// # Errors
    ///
    /// Unreachable, refused, or the registry's answer to the manifest names another digest.
    pub async fn push_chart(&self, reference: &Reference, artifact: &ChartArtifact) -> Result<String, RegistryError> {
        let scope = repository_scope(&reference.repository, true);
        // oras-go's copy asks first whether the destination has the manifest (`Exists`); what it has is only
        // tagged.
        let exists_url = format!("{}/v2/{}/manifests/{}", self.base, reference.repository, artifact.manifest_digest);
        let exists = self
            .send(Method::HEAD, &exists_url, &scope, |request| {
                request.header(reqwest::header::ACCEPT, IMAGE_MANIFEST_MEDIA_TYPE)
            })
            .await
            .map_err(|error| error.in_copy("Exists", "destination"))?;
        let present = match exists.status() {
            StatusCode::OK => true,
            StatusCode::NOT_FOUND => false,
            status => {
                let body = read_prefix(exists, ERROR_BODY_LIMIT).await;
                return Err(self.refusal(&Method::HEAD, &exists_url, status, &body).in_copy("Exists", "destination"));
            }
        };
        if !present {
            self.push_blob(&reference.repository, &artifact.config_descriptor, &artifact.config).await?;
            for (descriptor, data) in &artifact.layers {
                self.push_blob(&reference.repository, descriptor, data).await?;
            }
        }
        let url = format!("{}/v2/{}/manifests/{}", self.base, reference.repository, reference.tag);
        let manifest = artifact.manifest.clone();
        let response = self
            .send(Method::PUT, &url, &scope, |request| {
                request.header(reqwest::header::CONTENT_TYPE, IMAGE_MANIFEST_MEDIA_TYPE).body(manifest.clone())
            })
            .await?;
        let response = self.expect(&Method::PUT, &url, response, &[StatusCode::CREATED]).await?;
        if let Some(announced) = response.headers().get("docker-content-digest").and_then(|value| value.to_str().ok())
            && announced != artifact.manifest_digest
        {
            return Err(RegistryError::DigestMismatch {
                what: format!("the pushed manifest of {}", reference.display()),
                expected: artifact.manifest_digest.clone(),
                actual: announced.to_string(),
            });
        }
        Ok(artifact.manifest_digest.clone())
    }
}

/// A request that got no answer.
fn request_failed(method: &Method, url: &str, error: &reqwest::Error) -> RegistryError {
    RegistryError::Request { method: method.to_string(), failure: FetchError::from_reqwest(url, error) }
}

/// Why a request got no answer, in Go's words where berth knows them (a refused connection).
fn go_reason(failure: &FetchError) -> String {
    match failure {
        FetchError::Unreachable { url, reason } if reason == "connection refused" => crate::http::go_dial_refused(url),
        other => other.reason(),
    }
}

/// net/http's `urlErrorOp`: the method with only its first letter upper case (`Get`, `Head`).
fn go_method(method: &str) -> String {
    let mut letters = method.chars();
    letters.next().map(|first| first.to_string() + &letters.as_str().to_lowercase()).unwrap_or_default()
}

/// The URL of a `Link: <URL>; rel="next"` header.
fn next_link(header: &str) -> Option<String> {
    header.split(',').find_map(|link| {
        let (target, parameters) = link.split_once(';')?;
        parameters
            .contains("rel=\"next\"")
            .then(|| target.trim().trim_start_matches('<').trim_end_matches('>').to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_links_are_followed() {
        assert_eq!(
            next_link("</v2/a/tags/list?last=x&n=2>; rel=\"next\"").as_deref(),
            Some("/v2/a/tags/list?last=x&n=2")
        );
        assert_eq!(next_link("</x>; rel=\"prev\""), None);
    }
}
