//! Go's `path` (and `path/filepath`, which on Linux, where Helm runs, is the same lexical processing with '/'):
//! `Clean`, `Base`, `Dir` and `Ext`, for chart archive entries, repository URLs and Sprig's path functions alike.

/// `path.Clean`: one slash between names, `.` names dropped, `..` removing the name before it (and at the root,
/// itself); "." for an empty result.
pub fn clean(path: &str) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for element in path.split('/') {
        match element {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|last| *last != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            name => parts.push(name),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// `path.Base`: the last element, trailing slashes removed; "." for an empty path, "/" for slashes only.
pub fn base(path: &str) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".to_string();
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_string()
}

/// `path.Dir`: [`clean`] of everything up to the last slash.
pub fn dir(path: &str) -> String {
    let cut = path.rfind('/').map_or(0, |i| i + 1);
    clean(&path[..cut])
}

/// `path.Ext`: from the last dot of the final element.
pub fn ext(path: &str) -> &str {
    for (i, c) in path.char_indices().rev() {
        match c {
            '/' => return "",
            '.' => return &path[i..],
            _ => {}
        }
    }
    ""
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_follows_go() {
        let cases = [
            ("", "."),
            ("a//b/./c/..", "a/b"),
            ("/../a", "/a"),
            ("../../a/../b", "../../b"),
            ("a/../..", ".."),
            ("a/./b/", "a/b"),
            ("/a/../b/./c/", "/b/c"),
            ("/", "/"),
            ("a/..", "."),
            ("./", "."),
            ("//a//", "/a"),
        ];
        for (input, want) in cases {
            assert_eq!(clean(input), want, "{input}");
        }
    }

    #[test]
    fn base_dir_ext_follow_go() {
        assert_eq!(base("/a/b/"), "b");
        assert_eq!(base("///"), "/");
        assert_eq!(base(""), ".");
        assert_eq!(dir("/a/b/c"), "/a/b");
        assert_eq!(dir("c"), ".");
        assert_eq!(ext("a/b.tar.gz"), ".gz");
        assert_eq!(ext("a.b/c"), "");
    }
}
