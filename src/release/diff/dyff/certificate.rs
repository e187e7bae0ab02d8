//! dyff's certificate inspection (`LoadX509Certs` and `certificateSummaryAsYAML` in `pkg/dyff/output_human.go`):
//! when both strings of a change hold a PEM block (Go's `pem.Decode`: the first block starting a line) whose bytes
//! parse as an X.509 certificate (Go's `x509.ParseCertificate`, nothing after it), dyff shows a summary of each
//! instead of the text. Parsing is x509-parser's.

use x509_parser::certificate::X509Certificate;
use x509_parser::prelude::FromDer;
use x509_parser::x509::{AttributeTypeAndValue, X509Name};

/// The summaries of both certificates, or none when either string is not one.
pub fn summaries(from: &str, to: &str) -> Option<(String, String)> {
    Some((summary(from)?, summary(to)?))
}

/// `pem.Decode` and `x509.ParseCertificate` of a string, then `certificateSummaryAsYAML`.
fn summary(text: &str) -> Option<String> {
    // A cheap test first: most strings of a manifest are no PEM text.
    if !text.contains("-----BEGIN ") {
        return None;
    }
    let (_, pem) = x509_parser::pem::parse_x509_pem(text.as_bytes()).ok()?;
    let (rest, certificate) = X509Certificate::from_der(&pem.contents).ok()?;
    if !rest.is_empty() {
        return None;
    }
    let subject = certificate.subject();
    let issuer = certificate.issuer();
    let serial = &certificate.tbs_certificate.serial;
    Some(format!(
        "Subject:\n  Common Name: {}\n  Organization: {}\n  Organization Unit: {}\n  Locality: {}\n  State: {}\n  \
         Country: {}\nValidity Period:\n  NotBefore: {}\n  NotAfter: {}\nIssuer: {}, {}\nSerial Number: {} ({:#x})\n",
        common_name(subject),
        joined(subject.iter_organization()),
        joined(subject.iter_organizational_unit()),
        joined(subject.iter_locality()),
        joined(subject.iter_state_or_province()),
        joined(subject.iter_country()),
        go_time(certificate.validity().not_before.timestamp()),
        go_time(certificate.validity().not_after.timestamp()),
        common_name(issuer),
        joined(issuer.iter_organization()),
        serial,
        serial,
    ))
}

/// `pkix.Name.CommonName`: the last common name (`FillFromRDNSequence` overwrites it), empty when none.
fn common_name(name: &X509Name) -> String {
    name.iter_common_name().filter_map(|attribute| attribute.as_str().ok()).last().unwrap_or_default().to_string()
}

/// `strings.Join(values, " ")` of the string values of an attribute (Go keeps only string values).
fn joined<'a>(attributes: impl Iterator<Item = &'a AttributeTypeAndValue<'a>>) -> String {
    attributes.filter_map(|attribute| attribute.as_str().ok()).collect::<Vec<_>>().join(" ")
}

/// Go's `Format("Jan 2 15:04:05 2006 MST")` of a certificate time, which Go reads in UTC.
fn go_time(seconds: i64) -> String {
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let Ok(timestamp) = jiff::Timestamp::from_second(seconds) else { return String::new() };
    let time = timestamp.to_zoned(jiff::tz::TimeZone::UTC).datetime();
    let month = usize::try_from(time.month() - 1).ok().and_then(|index| MONTHS.get(index)).copied().unwrap_or_default();
    format!("{month} {} {:02}:{:02}:{:02} {} UTC", time.day(), time.hour(), time.minute(), time.second(), time.year())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// dyff v1.12.0 `assets/testbed/expected-dyff-spruce.human`, `certs.data`: the summaries of both certificates.
    #[test]
    fn testbed_certificates_are_summarised_as_dyff_summarises_them() {
        let value =
            |file: &str| -> String { file.lines().skip(2).map(|line| format!("{}\n", line.trim_start())).collect() };
        let (from, to) = summaries(
            &value(include_str!("testdata/testbed-certs-from.yml")),
            &value(include_str!("testdata/testbed-certs-to.yml")),
        )
        .expect("both are certificates");
        assert_eq!(
            from,
            "Subject:\n  Common Name: www.example.com\n  Organization: Company Name\n  Organization Unit: Org\n  \
             Locality: Portland\n  State: Oregon\n  Country: US\nValidity Period:\n  NotBefore: Apr 2 19:29:56 2018 UTC\n  \
             NotAfter: Apr 2 19:29:56 2019 UTC\nIssuer: www.example.com, Company Name\n\
             Serial Number: 14581103526614300972 (0xca5a7c67490a792c)\n"
        );
        assert_eq!(
            to,
            "Subject:\n  Common Name: www.example.com\n  Organization: My Company Name\n  Organization Unit: Org\n  \
             Locality: Portland\n  State: Oregon\n  Country: US\nValidity Period:\n  NotBefore: Apr 2 19:37:46 2018 UTC\n  \
             NotAfter: Apr 1 19:37:46 2020 UTC\nIssuer: www.example.com, My Company Name\n\
             Serial Number: 12453678034067864896 (0xacd45a3087b33d40)\n"
        );
        assert_eq!(summaries("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n", &to), None);
        assert_eq!(summaries("plain", "text"), None);
    }
}
