//! Warnings that handling a request raises for its response's `Warning` headers, as kube-apiserver's
//! `warning.AddWarning(ctx, ...)` records them in the request's context (apiserver `pkg/warning`): a custom
//! resource's failing CEL rule on a value left unchanged (ratcheting) is answered as a warning, not refused.
//!
//! The simulated server answers a request synchronously on one thread, so the recorder is that thread's for
//! the time of the answer: [`collect`] runs the answer and returns what [`add`] recorded meanwhile. Outside
//! one (a simulated controller's write) [`add`] records nothing, as a Go controller's context has no recorder.

use std::cell::RefCell;

thread_local! {
    static RECORDER: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Runs `work`, returning its result and the warnings it raised, each once, in the order raised.
pub fn collect<T>(work: impl FnOnce() -> T) -> (T, Vec<String>) {
    let outer = RECORDER.with(|recorder| recorder.replace(Some(Vec::new())));
    let result = work();
    let raised = RECORDER.with(|recorder| recorder.replace(outer)).unwrap_or_default();
    (result, raised)
}

/// Records a warning for the request being answered on this thread, if any (a repeated one once, as the
/// apiserver's recorder deduplicates).
pub fn add(text: String) {
    RECORDER.with(|recorder| {
        if let Some(raised) = recorder.borrow_mut().as_mut()
            && !raised.contains(&text)
        {
            raised.push(text);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_collected_only_while_a_request_is_answered() {
        add("before".to_string());
        let ((), raised) = collect(|| {
            add("a".to_string());
            add("b".to_string());
            add("a".to_string());
        });
        assert_eq!(raised, ["a", "b"]);
        add("after".to_string());
        assert_eq!(collect(|| ()).1, Vec::<String>::new());
    }
}
