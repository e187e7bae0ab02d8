//! Work split into runs, each run done on a thread of its own, the results kept in order: how berth uses both
//! cores of a small machine for the few large, separable jobs of a release (reading the heads of a large chart's
//! output, compressing a large record, reading the objects).

/// How many threads are worth starting: the machine's cores, at most four.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get).min(4)
}

/// `work` done on each of `runs` on a thread with `stack` bytes of stack, the results in the runs' order. A
/// run whose thread cannot start is done on the calling thread; a panic in a run is resumed on the caller.
pub fn map_in_order<T: Sync, R: Send>(runs: &[T], stack: usize, work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    std::thread::scope(|scope| {
        let work = &work;
        let started: Vec<_> = runs
            .iter()
            .map(|run| (run, std::thread::Builder::new().stack_size(stack).spawn_scoped(scope, move || work(run))))
            .collect();
        started
            .into_iter()
            .map(|(run, thread)| match thread {
                Ok(thread) => thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(_) => work(run),
            })
            .collect()
    })
}

/// Below this many bytes, work on text is done on the calling thread: threads cost more than they save.
pub const WORTH_THREADS_ABOVE: usize = 256 * 1024;

/// `work` done on each of `items`, the results in the items' order: on the calling thread when their total
/// `size` is under [`WORTH_THREADS_ABOVE`] (or the machine has one core), otherwise on one thread per core
/// (with `stack` bytes of stack), each taking a run of items of about the same size.
pub fn map_large<T: Sync, R: Send>(
    items: Vec<T>,
    stack: usize,
    size: impl Fn(&T) -> usize,
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let total: usize = items.iter().map(&size).sum();
    let count = threads();
    if total < WORTH_THREADS_ABOVE || count < 2 {
        return items.iter().map(work).collect();
    }
    let runs = runs_by_size(items, count, size);
    map_in_order(&runs, stack, |run| run.iter().map(&work).collect::<Vec<_>>()).into_iter().flatten().collect()
}

/// `items` cut, in order, into at most `count` runs of about the same total `size`.
pub fn runs_by_size<T>(items: Vec<T>, count: usize, size: impl Fn(&T) -> usize) -> Vec<Vec<T>> {
    let total: usize = items.iter().map(&size).sum();
    let target = total.div_ceil(count.max(1)).max(1);
    let mut runs: Vec<Vec<T>> = Vec::new();
    let mut filled = target;
    for item in items {
        if filled >= target {
            runs.push(Vec::new());
            filled = 0;
        }
        filled += size(&item);
        if let Some(run) = runs.last_mut() {
            run.push(item);
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_order_of_the_runs() {
        let runs: Vec<Vec<u32>> = (0..7).map(|run| (run * 10..run * 10 + 10).collect()).collect();
        let sums = map_in_order(&runs, 256 * 1024, |run| run.iter().sum::<u32>());
        assert_eq!(sums, runs.iter().map(|run| run.iter().sum::<u32>()).collect::<Vec<_>>());
    }

    #[test]
    fn large_work_keeps_the_order_of_the_items() {
        for count in [10, 200_000] {
            let items: Vec<usize> = (0..count).collect();
            let doubled = map_large(items.clone(), 256 * 1024, |_| 8, |item| item * 2);
            assert_eq!(doubled, items.iter().map(|item| item * 2).collect::<Vec<_>>(), "{count} items");
        }
    }

    #[test]
    fn runs_are_cut_in_order_by_size() {
        let runs = runs_by_size(vec![5, 1, 1, 1, 1, 1, 5, 1], 2, |item| *item);
        assert_eq!(runs, vec![vec![5, 1, 1, 1], vec![1, 1, 5, 1]]);
        assert_eq!(runs_by_size(vec![3, 3, 3], 1, |item| *item), vec![vec![3, 3, 3]]);
        assert_eq!(runs_by_size(Vec::<usize>::new(), 4, |item| *item), Vec::<Vec<usize>>::new());
        assert_eq!(runs_by_size(vec![0, 0], 4, |item| *item), vec![vec![0, 0]]);
    }

    #[test]
    #[should_panic(expected = "boom")]
    fn a_panic_in_a_run_reaches_the_caller() {
        map_in_order(&[1, 2], 256 * 1024, |run| assert!(*run != 2, "boom"));
    }
}
