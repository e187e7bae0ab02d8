//! Sprig's math (functions.go, numeric.go): integer arithmetic on int64 with Go's wrapping and its runtime
//! panic on division by zero, `max`/`min` over cast integers, float arithmetic through shopspring/decimal
//! (`addf 0.1 0.2` is 0.3), `maxf`/`minf` with `math.Max`/`math.Min`'s NaN and signed-zero rules, `floor`,
//! `ceil`, and `round` computed as Sprig does, with Go's `math.Pow`.

use crate::args::SprigFn;
use crate::args::{at_least, call_error, fixed, float, int};
use crate::cast::{to_float64, to_int64};
use crate::decimal::{Decimal, DecimalError};
use berth_go::Value;
use berth_go::{Result, TemplateError};

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[
    ("add1", add1),
    ("add", add),
    ("sub", sub),
    ("div", div),
    ("mod", modulo),
    ("mul", mul),
    ("max", max),
    ("biggest", biggest),
    ("min", min),
    ("maxf", maxf),
    ("minf", minf),
    ("add1f", add1f),
    ("addf", addf),
    ("subf", subf),
    ("divf", divf),
    ("mulf", mulf),
    ("floor", floor),
    ("ceil", ceil),
    ("round", round),
];

fn int64(n: i64) -> Value {
    Value::Int64(n)
}

fn add1(args: &[Value]) -> Result<Value> {
    let [value] = fixed("add1", args)?;
    Ok(int64(to_int64(value).wrapping_add(1)))
}

fn add(args: &[Value]) -> Result<Value> {
    Ok(int64(args.iter().fold(0i64, |sum, v| sum.wrapping_add(to_int64(v)))))
}

fn sub(args: &[Value]) -> Result<Value> {
    let [a, b] = fixed("sub", args)?;
    Ok(int64(to_int64(a).wrapping_sub(to_int64(b))))
}

fn divide_by_zero() -> TemplateError {
    call_error("runtime error: integer divide by zero")
}

fn div(args: &[Value]) -> Result<Value> {
    let [a, b] = fixed("div", args)?;
    let divisor = to_int64(b);
    if divisor == 0 {
        return Err(divide_by_zero());
    }
    Ok(int64(to_int64(a).wrapping_div(divisor)))
}

fn modulo(args: &[Value]) -> Result<Value> {
    let [a, b] = fixed("mod", args)?;
    let divisor = to_int64(b);
    if divisor == 0 {
        return Err(divide_by_zero());
    }
    Ok(int64(to_int64(a).wrapping_rem(divisor)))
}

fn mul(args: &[Value]) -> Result<Value> {
    at_least("mul", args, 1)?;
    Ok(int64(args[1..].iter().fold(to_int64(&args[0]), |product, v| product.wrapping_mul(to_int64(v)))))
}

fn extreme(name: &str, args: &[Value], pick: fn(i64, i64) -> i64) -> Result<Value> {
    at_least(name, args, 1)?;
    Ok(int64(args[1..].iter().fold(to_int64(&args[0]), |best, v| pick(best, to_int64(v)))))
}

fn max(args: &[Value]) -> Result<Value> {
    extreme("max", args, i64::max)
}

fn biggest(args: &[Value]) -> Result<Value> {
    extreme("biggest", args, i64::max)
}

fn min(args: &[Value]) -> Result<Value> {
    extreme("min", args, i64::min)
}

/// Go's `math.Max`: +Inf wins, then NaN, and +0 beats -0.
fn go_max(x: f64, y: f64) -> f64 {
    if x == f64::INFINITY || y == f64::INFINITY {
        return f64::INFINITY;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 && x == y {
        return if x.is_sign_negative() { y } else { x };
    }
    if x > y { x } else { y }
}

/// Go's `math.Min`: -Inf wins, then NaN, and -0 beats +0.
fn go_min(x: f64, y: f64) -> f64 {
    if x == f64::NEG_INFINITY || y == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 && x == y {
        return if x.is_sign_negative() { x } else { y };
    }
    if x < y { x } else { y }
}

fn maxf(args: &[Value]) -> Result<Value> {
    at_least("maxf", args, 1)?;
    Ok(Value::Float(args[1..].iter().fold(to_float64(&args[0]), |best, v| go_max(best, to_float64(v)))))
}

fn minf(args: &[Value]) -> Result<Value> {
    at_least("minf", args, 1)?;
    Ok(Value::Float(args[1..].iter().fold(to_float64(&args[0]), |best, v| go_min(best, to_float64(v)))))
}

fn decimal_error(error: DecimalError) -> TemplateError {
    match error {
        DecimalError::NotFinite(text) => call_error(format!("Cannot create a Decimal from {text}")),
        DecimalError::DivisionByZero => call_error("decimal division by 0"),
    }
}

/// Sprig's `execDecimalOp`: the first value, then each of the rest folded in with `op`, in exact decimals.
fn decimal_fold(
    first: &Value,
    rest: &[Value],
    op: fn(&Decimal, &Decimal) -> std::result::Result<Decimal, DecimalError>,
) -> Result<Value> {
    let mut acc = Decimal::from_float(to_float64(first)).map_err(decimal_error)?;
    for value in rest {
        let operand = Decimal::from_float(to_float64(value)).map_err(decimal_error)?;
        acc = op(&acc, &operand).map_err(decimal_error)?;
    }
    Ok(Value::Float(acc.to_float()))
}

fn decimal_add(a: &Decimal, b: &Decimal) -> std::result::Result<Decimal, DecimalError> {
    Ok(a.add(b))
}

fn decimal_sub(a: &Decimal, b: &Decimal) -> std::result::Result<Decimal, DecimalError> {
    Ok(a.sub(b))
}

fn decimal_mul(a: &Decimal, b: &Decimal) -> std::result::Result<Decimal, DecimalError> {
    Ok(a.mul(b))
}

fn add1f(args: &[Value]) -> Result<Value> {
    let [value] = fixed("add1f", args)?;
    decimal_fold(value, &[Value::Int(1)], decimal_add)
}

fn addf(args: &[Value]) -> Result<Value> {
    decimal_fold(&Value::Float(0.0), args, decimal_add)
}

fn subf(args: &[Value]) -> Result<Value> {
    at_least("subf", args, 1)?;
    decimal_fold(&args[0], &args[1..], decimal_sub)
}

fn mulf(args: &[Value]) -> Result<Value> {
    at_least("mulf", args, 1)?;
    decimal_fold(&args[0], &args[1..], decimal_mul)
}

fn divf(args: &[Value]) -> Result<Value> {
    at_least("divf", args, 1)?;
    decimal_fold(&args[0], &args[1..], Decimal::div)
}

fn floor(args: &[Value]) -> Result<Value> {
    let [value] = fixed("floor", args)?;
    Ok(Value::Float(to_float64(value).floor()))
}

fn ceil(args: &[Value]) -> Result<Value> {
    let [value] = fixed("ceil", args)?;
    Ok(Value::Float(to_float64(value).ceil()))
}

/// Go's `math.Ldexp(frac, exp)` for normal results, in steps that cannot overflow the scale factor.
fn ldexp(mut frac: f64, mut exp: i64) -> f64 {
    while exp > 1000 {
        frac *= 2f64.powi(1000);
        exp -= 1000;
    }
    while exp < -1000 {
        frac *= 2f64.powi(-1000);
        exp += 1000;
    }
    frac * 2f64.powi(exp as i32)
}

/// Go's `math.Pow(10, y)` for an integer `y`: repeated squaring of the mantissa of 10 (`Frexp` gives
/// 0.625 × 2⁴) with the binary exponent kept apart, then `Ldexp`; a negative power inverts the mantissa.
fn go_pow10(y: i64) -> f64 {
    if y == 0 {
        return 1.0;
    }
    let (mut a1, mut ae) = (1.0f64, 0i64);
    let (mut x1, mut xe) = (0.625f64, 4i64);
    let mut i = y.unsigned_abs();
    while i != 0 {
        if !(-(1 << 12)..=(1 << 12)).contains(&xe) {
            ae += xe;
            break;
        }
        if i & 1 == 1 {
            a1 *= x1;
            ae += xe;
        }
        x1 *= x1;
        xe <<= 1;
        if x1 < 0.5 {
            x1 += x1;
            xe -= 1;
        }
        i >>= 1;
    }
    if y < 0 {
        a1 = 1.0 / a1;
        ae = -ae;
    }
    ldexp(a1, ae)
}

/// `round(a, p int, rOpt ...float64)`: Sprig's own rounding at `p` decimal places, up when the fraction is at
/// least `rOpt` (0.5 by default).
fn round(args: &[Value]) -> Result<Value> {
    at_least("round", args, 2)?;
    let value = to_float64(&args[0]);
    let places = int(&args[1])?;
    let round_on = match args.get(2) {
        Some(v) => float(v)?,
        None => 0.5,
    };
    for extra in args.iter().skip(3) {
        float(extra)?;
    }
    let pow = go_pow10(places);
    let digit = pow * value;
    let fraction = digit - digit.trunc();
    let rounded = if fraction >= round_on { digit.ceil() } else { digit.floor() };
    Ok(Value::Float(rounded / pow))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pow10_matches_exact_powers() {
        for p in 0..=22 {
            assert_eq!(go_pow10(p), format!("1e{p}").parse::<f64>().unwrap(), "10^{p}");
        }
        assert_eq!(go_pow10(-1), 0.1);
        assert_eq!(go_pow10(-2), 0.01);
    }

    #[test]
    fn go_min_max_rules() {
        assert!(go_max(1.0, f64::NAN).is_nan());
        assert_eq!(go_max(f64::NAN, f64::INFINITY), f64::INFINITY);
        assert!(go_max(-0.0, 0.0).is_sign_positive());
        assert!(go_min(0.0, -0.0).is_sign_negative());
        assert_eq!(go_min(f64::NAN, f64::NEG_INFINITY), f64::NEG_INFINITY);
    }
}
