//! OCI references as Helm reads them (pkg/registry/reference.go over oras' `ParseReference`):
//! `oci://HOST[:PORT]/PATH/CHART[:TAG][@DIGEST]`, with `+` in a tag written `_` (registries refuse `+`; Helm
//! turns it back into `+` when it lists tags). Pure.

/// A parsed reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// `host[:port]`.
    pub registry: String,
    /// The repository path (`charts/app`).
    pub repository: String,
    /// The tag, with `+` already made `_`; empty when none.
    pub tag: String,
    /// `sha256:...` when given.
    pub digest: String,
}

/// Helm's scheme.
pub const OCI_SCHEME: &str = "oci";

/// `registry.IsOCI`.
pub fn is_oci(reference: &str) -> bool {
    reference.starts_with("oci://")
}

impl Reference {
    /// `newReference`: the `oci://` prefix dropped, a digest split off at the last `@`, `+` in the tag made `_`,
    /// then oras' validation of registry, repository, tag and digest.
    ///
    /// # Errors
    ///
    /// oras' messages: `invalid reference: missing registry or repository`, `invalid repository`, ...
    pub fn parse(raw: &str) -> Result<Reference, String> {
        let mut raw = raw.strip_prefix("oci://").unwrap_or(raw).to_string();
        // `user:password@` before the host: oras would take the rest for a digest and its message would quote
        // the password. Said without repeating any of it.
        if raw.split('/').next().is_some_and(|registry| registry.contains('@')) {
            return Err("invalid reference: credentials in the registry address; use --username and --password, \
                        or `berth registry login`"
                .to_string());
        }
        let mut digest = String::new();
        if let Some(at) = raw.rfind('@') {
            digest = raw[at + 1..].to_string();
            raw.truncate(at);
        }
        let (registry, path) = raw
            .split_once('/')
            .filter(|(registry, path)| !registry.is_empty() && !path.is_empty())
            .ok_or_else(|| format!("invalid reference: missing registry or repository: {raw}"))?;
        let (repository, tag) = match path.rfind(':') {
            Some(colon) if !path[colon + 1..].contains('/') => (&path[..colon], path[colon + 1..].replace('+', "_")),
            _ => (path, String::new()),
        };
        if !is_valid_registry(registry) {
            return Err(format!("invalid reference: invalid registry: {registry:?}"));
        }
        if !is_valid_repository(repository) {
            return Err(format!("invalid reference: invalid repository: {repository:?}"));
        }
        if !tag.is_empty() && !is_valid_tag(&tag) {
            return Err(format!("invalid reference: invalid tag: {tag:?}"));
        }
        if !digest.is_empty() && !is_valid_digest(&digest) {
            return Err(format!("invalid reference: invalid digest: {digest:?}"));
        }
        Ok(Reference { registry: registry.to_string(), repository: repository.to_string(), tag, digest })
    }

    /// The chart's name: the last element of the repository.
    pub fn chart_name(&self) -> &str {
        self.repository.rsplit('/').next().unwrap_or(&self.repository)
    }

    /// What the manifest is fetched by: the digest when given, else the tag.
    pub fn manifest_reference(&self) -> &str {
        if self.digest.is_empty() { &self.tag } else { &self.digest }
    }

    /// `host/repository[:tag][@digest]`, as Helm prints it (`Pulled: ...`).
    pub fn display(&self) -> String {
        let mut text = format!("{}/{}", self.registry, self.repository);
        if !self.tag.is_empty() {
            text.push(':');
            text.push_str(&self.tag);
        }
        if !self.digest.is_empty() {
            text.push('@');
            text.push_str(&self.digest);
        }
        text
    }
}

fn is_valid_registry(registry: &str) -> bool {
    let (host, port) = match registry.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || registry.starts_with('[') => (host, Some(port)),
        _ => (registry, None),
    };
    let host_ok = !host.is_empty()
        && host.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'[' | b']' | b':'));
    let port_ok =
        port.is_none_or(|port| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) && port.len() <= 5);
    host_ok && port_ok
}

/// The distribution spec's repository grammar: lowercase components separated by `/`, each
/// `[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*`.
fn is_valid_repository(repository: &str) -> bool {
    repository.split('/').all(|component| {
        let bytes = component.as_bytes();
        if bytes.is_empty() || !bytes[0].is_ascii_lowercase() && !bytes[0].is_ascii_digit() {
            return false;
        }
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii_lowercase() || b.is_ascii_digit() {
                i += 1;
                continue;
            }
            // A separator: `.`, `_`, `__` or a run of `-`, followed by an alphanumeric.
            let start = i;
            match b {
                b'.' => i += 1,
                b'_' => i += if bytes.get(i + 1) == Some(&b'_') { 2 } else { 1 },
                b'-' => {
                    while bytes.get(i) == Some(&b'-') {
                        i += 1;
                    }
                }
                _ => return false,
            }
            if i == start || !bytes.get(i).is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) {
                return false;
            }
        }
        true
    }) && repository.len() <= 255
}

/// `[\w][\w.-]{0,127}`.
fn is_valid_tag(tag: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = tag.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 128
        && word(bytes[0])
        && bytes.iter().all(|&b| word(b) || b == b'.' || b == b'-')
}

/// `sha256:` and 64 lowercase hex digits (the only algorithm Helm's charts use).
pub fn is_valid_digest(digest: &str) -> bool {
    digest
        .strip_prefix("sha256:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse_as_helm_reads_them() {
        let digest = format!("sha256:{}", "a".repeat(64));
        let table = [
            ("oci://localhost:5000/charts/app:1.2.3+build.1", "localhost:5000", "charts/app", "1.2.3_build.1", ""),
            ("oci://r.example/app", "r.example", "app", "", ""),
            ("r.example/a/b/app:0.1.0", "r.example", "a/b/app", "0.1.0", ""),
        ];
        for (raw, registry, repository, tag, digest) in table {
            let parsed = Reference::parse(raw).unwrap();
            assert_eq!(
                (parsed.registry.as_str(), parsed.repository.as_str(), parsed.tag.as_str(), parsed.digest.as_str()),
                (registry, repository, tag, digest),
                "{raw}"
            );
        }
        let with_digest = Reference::parse(&format!("oci://h:1/app:1.0.0@{digest}")).unwrap();
        assert_eq!(with_digest.manifest_reference(), digest);
        assert_eq!(with_digest.chart_name(), "app");
        assert_eq!(with_digest.display(), format!("h:1/app:1.0.0@{digest}"));
        for bad in [
            "oci://host",
            "oci://host/App",
            "oci://host/a//b",
            "oci://host/app:bad tag",
            "oci://host/app@sha256:12",
            "oci:///app",
        ] {
            assert!(Reference::parse(bad).is_err(), "{bad}");
        }
        assert!(is_oci("oci://x/y"));
        assert!(!is_oci("https://x/y"));
    }

    #[test]
    fn credentials_in_the_address_are_refused_without_being_repeated() {
        for raw in ["oci://me:s3cret@host/charts/app", "oci://me:s3cret@host", "me:s3cret@host:5000/app:1.0.0"] {
            let error = Reference::parse(raw).unwrap_err();
            assert!(error.contains("credentials") && !error.contains("s3cret"), "{raw}: {error}");
        }
    }
}
