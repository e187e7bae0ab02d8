//! The part of shopspring/decimal v1.4.0 Sprig's float math uses (`addf`, `subf`, `mulf`, `divf`,
//! `add1f`): `NewFromFloat` (the shortest decimal that reads back as the float), exact `Add`/`Sub`/`Mul`,
//! `Div` rounded half away from zero to 16 decimal places, and `Float64` (the nearest float to the exact
//! decimal). This is why `addf 0.1 0.2` is 0.3 in Helm, not 0.30000000000000004.
//!
//! Numbers are `±mantissa × 10^exponent` with an unbounded mantissa in base-10⁹ limbs; every right-hand operand
//! comes from one float (at most 17 digits), so the arithmetic needed is big ± big, big × u64 and big ÷ u64.

use std::cmp::Ordering;
use std::string::String;
use std::vec::Vec;

const BASE: u64 = 1_000_000_000;

/// An unsigned integer in base 10⁹, least significant limb first, no trailing zero limbs.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
struct Natural(Vec<u32>);

impl Natural {
    fn from_u64(mut n: u64) -> Self {
        let mut limbs = Vec::new();
        while n > 0 {
            limbs.push((n % BASE) as u32);
            n /= BASE;
        }
        Natural(limbs)
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn trim(mut self) -> Self {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        self
    }

    fn mul_small(&self, factor: u64) -> Self {
        let mut out = Vec::with_capacity(self.0.len() + 3);
        let mut carry: u128 = 0;
        for &limb in &self.0 {
            let product = u128::from(limb) * u128::from(factor) + carry;
            out.push((product % u128::from(BASE)) as u32);
            carry = product / u128::from(BASE);
        }
        while carry > 0 {
            out.push((carry % u128::from(BASE)) as u32);
            carry /= u128::from(BASE);
        }
        Natural(out).trim()
    }

    fn mul_pow10(&self, mut k: u32) -> Self {
        if self.is_zero() {
            return self.clone();
        }
        let mut limbs = Vec::with_capacity(self.0.len() + (k / 9) as usize + 1);
        limbs.resize((k / 9) as usize, 0);
        limbs.extend_from_slice(&self.0);
        let mut out = Natural(limbs);
        k %= 9;
        if k > 0 {
            out = out.mul_small(10u64.pow(k));
        }
        out
    }

    fn add(&self, other: &Natural) -> Self {
        let mut out = Vec::with_capacity(self.0.len().max(other.0.len()) + 1);
        let mut carry = 0u64;
        for i in 0..self.0.len().max(other.0.len()) {
            let sum = u64::from(*self.0.get(i).unwrap_or(&0)) + u64::from(*other.0.get(i).unwrap_or(&0)) + carry;
            out.push((sum % BASE) as u32);
            carry = sum / BASE;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        Natural(out).trim()
    }

    /// `self - other`, for `self >= other`.
    fn sub(&self, other: &Natural) -> Self {
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let mut diff = i64::from(self.0[i]) - i64::from(*other.0.get(i).unwrap_or(&0)) - borrow;
            borrow = 0;
            if diff < 0 {
                diff += BASE as i64;
                borrow = 1;
            }
            out.push(diff as u32);
        }
        Natural(out).trim()
    }

    fn cmp(&self, other: &Natural) -> Ordering {
        self.0.len().cmp(&other.0.len()).then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    fn divrem_small(&self, divisor: u64) -> (Natural, u64) {
        let mut out = vec![0u32; self.0.len()];
        let mut rem: u128 = 0;
        for i in (0..self.0.len()).rev() {
            let current = rem * u128::from(BASE) + u128::from(self.0[i]);
            out[i] = (current / u128::from(divisor)) as u32;
            rem = current % u128::from(divisor);
        }
        (Natural(out).trim(), rem as u64)
    }

    fn to_decimal_string(&self) -> String {
        let Some((last, rest)) = self.0.split_last() else {
            return String::from("0");
        };
        let mut out = last.to_string();
        for limb in rest.iter().rev() {
            out.push_str(&format!("{limb:09}"));
        }
        out
    }

    /// `self / 10^k`, truncated.
    fn div_pow10(&self, k: u32) -> Natural {
        let digits = self.to_decimal_string();
        let keep = digits.len().saturating_sub(k as usize);
        if keep == 0 {
            return Natural::default();
        }
        Natural::parse(&digits[..keep])
    }

    fn parse(digits: &str) -> Natural {
        let bytes = digits.as_bytes();
        let mut limbs = Vec::with_capacity(bytes.len() / 9 + 1);
        let mut end = bytes.len();
        while end > 0 {
            let start = end.saturating_sub(9);
            let chunk = std::str::from_utf8(&bytes[start..end]).unwrap_or("0");
            limbs.push(chunk.parse::<u32>().unwrap_or(0));
            end = start;
        }
        Natural(limbs).trim()
    }
}

/// `±mantissa × 10^exponent`.
#[derive(Clone, Debug)]
pub(crate) struct Decimal {
    negative: bool,
    mantissa: Natural,
    exponent: i64,
}

/// Why a decimal operation failed, as shopspring panics.
#[derive(Debug, PartialEq)]
pub(crate) enum DecimalError {
    /// `Cannot create a Decimal from NaN` (and `+Inf`, `-Inf`).
    NotFinite(String),
    /// `decimal division by 0`.
    DivisionByZero,
}

impl Decimal {
    /// `NewFromFloat`: the shortest decimal that reads back as `f`.
    pub(crate) fn from_float(f: f64) -> Result<Self, DecimalError> {
        if !f.is_finite() {
            return Err(DecimalError::NotFinite(berth_go::strconv::format_float_g(f)));
        }
        if f == 0.0 {
            return Ok(Decimal { negative: false, mantissa: Natural::default(), exponent: 0 });
        }
        let scientific = format!("{:e}", f.abs());
        let (digits, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
        let exponent: i64 = exponent.parse().unwrap_or(0);
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        let all_digits = format!("{whole}{fraction}");
        Ok(Decimal {
            negative: f < 0.0,
            mantissa: Natural::parse(&all_digits),
            exponent: exponent - fraction.len() as i64,
        })
    }

    /// Both mantissas scaled to the smaller exponent.
    fn aligned(&self, other: &Decimal) -> (Natural, Natural, i64) {
        let exponent = self.exponent.min(other.exponent);
        let scale = |d: &Decimal| d.mantissa.mul_pow10((d.exponent - exponent) as u32);
        (scale(self), scale(other), exponent)
    }

    /// Exact sum.
    pub(crate) fn add(&self, other: &Decimal) -> Decimal {
        let (a, b, exponent) = self.aligned(other);
        if self.negative == other.negative {
            return Decimal { negative: self.negative, mantissa: a.add(&b), exponent };
        }
        match a.cmp(&b) {
            Ordering::Less => Decimal { negative: other.negative, mantissa: b.sub(&a), exponent },
            _ => Decimal { negative: self.negative, mantissa: a.sub(&b), exponent },
        }
    }

    /// Exact difference.
    pub(crate) fn sub(&self, other: &Decimal) -> Decimal {
        let negated = Decimal { negative: !other.negative, ..other.clone() };
        self.add(&negated)
    }

    /// The mantissa of a decimal made from one float (at most 17 digits).
    fn small_mantissa(&self) -> u64 {
        self.mantissa.to_decimal_string().parse().unwrap_or(0)
    }

    /// Exact product; `other` comes from one float.
    pub(crate) fn mul(&self, other: &Decimal) -> Decimal {
        Decimal {
            negative: self.negative != other.negative,
            mantissa: self.mantissa.mul_small(other.small_mantissa()),
            exponent: self.exponent + other.exponent,
        }
    }

    /// `Div`: `DivRound(other, 16)`, the quotient as a multiple of 10⁻¹⁶ rounded half away from zero; `other`
    /// comes from one float.
    pub(crate) fn div(&self, other: &Decimal) -> Result<Decimal, DecimalError> {
        const PRECISION: i64 = 16;
        let divisor = other.small_mantissa();
        if divisor == 0 {
            return Err(DecimalError::DivisionByZero);
        }
        // |self| / |other| × 10^16 = mantissa × 10^e / divisor with e = self.exp - other.exp + 16.
        let e = self.exponent - other.exponent + PRECISION;
        let (quotient, rounds_up) = if e >= 0 {
            let numerator = self.mantissa.mul_pow10(e as u32);
            let (q, r) = numerator.divrem_small(divisor);
            (q, u128::from(r) * 2 >= u128::from(divisor))
        } else {
            // numerator / (divisor × 10^-e)
            let k = (-e) as u32;
            let q = self.mantissa.div_pow10(k).divrem_small(divisor).0;
            let full_divisor = Natural::from_u64(divisor).mul_pow10(k);
            let r = self.mantissa.sub(&q.mul_small(divisor).mul_pow10(k));
            (q, r.mul_small(2).cmp(&full_divisor) != Ordering::Less)
        };
        let mantissa = if rounds_up { quotient.add(&Natural::from_u64(1)) } else { quotient };
        Ok(Decimal { negative: self.negative != other.negative, mantissa, exponent: -PRECISION })
    }

    /// `Float64`: the float nearest to the exact value.
    pub(crate) fn to_float(&self) -> f64 {
        let text =
            format!("{}{}e{}", if self.negative { "-" } else { "" }, self.mantissa.to_decimal_string(), self.exponent);
        text.parse().unwrap_or(f64::NAN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(f: f64) -> Decimal {
        Decimal::from_float(f).unwrap()
    }

    #[test]
    fn arithmetic_is_exact_decimal() {
        assert_eq!(d(0.1).add(&d(0.2)).to_float(), 0.3);
        assert_eq!(d(1e300).add(&d(1e-300)).to_float(), 1e300);
        assert_eq!(d(0.3).sub(&d(0.1)).to_float(), 0.2);
        assert_eq!(d(1.1).mul(&d(1.1)).to_float(), 1.21);
        assert_eq!(d(-2.5).mul(&d(4.0)).to_float(), -10.0);
        assert_eq!(d(1.0).sub(&d(3.0)).to_float(), -2.0);
    }

    #[test]
    fn division_rounds_to_sixteen_places() {
        assert_eq!(d(1.0).div(&d(3.0)).unwrap().to_float(), 0.3333333333333333);
        assert_eq!(d(2.0).div(&d(3.0)).unwrap().to_float(), 0.6666666666666667);
        assert_eq!(d(-2.0).div(&d(3.0)).unwrap().to_float(), -0.6666666666666667);
        assert_eq!(d(1.0).div(&d(1e20)).unwrap().to_float(), 0.0);
        assert_eq!(d(5.0).div(&d(1e16)).unwrap().to_float(), 5e-16);
        assert_eq!(d(1e300).div(&d(1e-5)).unwrap().to_float(), 1e305);
        assert_eq!(d(1.0).div(&d(0.0)).unwrap_err(), DecimalError::DivisionByZero);
    }

    #[test]
    fn non_finite_floats_are_refused() {
        assert_eq!(Decimal::from_float(f64::NAN).unwrap_err(), DecimalError::NotFinite(String::from("NaN")));
    }
}
