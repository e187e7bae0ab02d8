//! Errors that report every problem at once: a manifest set, a plan, health rules. Each problem is a complete,
//! self-contained line naming where it was found, so one run tells the user everything there is to fix.

use std::fmt;

/// Every problem found; the input was rejected as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problems<P> {
    pub problems: Vec<P>,
}

impl<P> Problems<P> {
    pub fn new(problems: Vec<P>) -> Problems<P> {
        Problems { problems }
    }

    /// `Ok(value)` when nothing was found, else the problems.
    ///
    /// # Errors
    /// The problems, when there are any.
    pub fn into_result<T>(problems: Vec<P>, value: T) -> Result<T, Problems<P>> {
        if problems.is_empty() { Ok(value) } else { Err(Problems { problems }) }
    }
}

/// One problem a line.
impl<P: fmt::Display> fmt::Display for Problems<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, problem) in self.problems.iter().enumerate() {
            if index > 0 {
                writeln!(f)?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl<P: fmt::Display + fmt::Debug> std::error::Error for Problems<P> {}

#[cfg(test)]
mod tests {
    use super::Problems;

    #[test]
    fn lists_one_problem_a_line() {
        let problems = Problems::new(vec!["a.yaml: bad", "b.yaml: worse"]);
        assert_eq!(problems.to_string(), "a.yaml: bad\nb.yaml: worse");
        assert_eq!(Problems::into_result(Vec::<&str>::new(), 3), Ok(3));
        assert!(Problems::into_result(vec!["x"], 3).is_err());
    }
}
