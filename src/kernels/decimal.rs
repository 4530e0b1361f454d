//! The numbers of an expression's text (`2.5`, `1e-3`) to `f32`: the value and the errors of
//! `str::parse::<f32>`, correctly rounded (to nearest, ties to even), in exact integer
//! arithmetic. The standard library's parser carries a 10 KB table of powers of five (its
//! Eisel-Lemire fast path): with its code, 15 KB of the wasm and 13 KB gzipped, for numbers
//! read once per expression.

/// Significant digits kept; the rest only say whether they are all zero. The halfway point
/// between two neighbouring `f32`s has at most 113 significant digits (an odd multiple of
/// 2^-150 below 2^128), so no number cut here lands on the other side of one.
const KEPT: usize = 200;

/// `text` as `text.parse::<f32>()` reads it, for the numbers the tokenizer cuts (no sign, no
/// `inf` or `nan`): digits with an optional point, then an optional exponent. `None` where
/// `parse` fails.
pub fn parse_f32(text: &str) -> Option<f32> {
    let bytes = text.as_bytes();
    let mut number = Decimal::default();
    let mut at = 0;
    let whole = number.digits(bytes, &mut at, false);
    let fraction = if bytes.get(at) == Some(&b'.') {
        at += 1;
        number.digits(bytes, &mut at, true)
    } else {
        0
    };
    if whole + fraction == 0 {
        return None;
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        let negative = bytes.get(at) == Some(&b'-');
        if matches!(bytes.get(at), Some(b'-' | b'+')) {
            at += 1;
        }
        let start = at;
        let mut exponent = 0i64;
        while let Some(&d) = bytes.get(at).filter(|b| b.is_ascii_digit()) {
            // As the standard library: the exponent stops growing past 2^16.
            if exponent < 0x10000 {
                exponent = 10 * exponent + i64::from(d - b'0');
            }
            at += 1;
        }
        if at == start {
            return None;
        }
        number.exponent += if negative { -exponent } else { exponent };
    }
    (at == bytes.len()).then(|| number.to_f32())
}

/// `digits x 10^exponent`, plus a little more where `rest` (a nonzero digit past [`KEPT`]).
#[derive(Default)]
struct Decimal {
    digits: Vec<u8>,
    exponent: i64,
    rest: bool,
}

impl Decimal {
    /// Reads the digits at `at` (after the point if `fraction`); how many there were.
    fn digits(&mut self, bytes: &[u8], at: &mut usize, fraction: bool) -> usize {
        let start = *at;
        while let Some(&d) = bytes.get(*at).filter(|b| b.is_ascii_digit()) {
            *at += 1;
            let d = d - b'0';
            if self.digits.len() < KEPT && (d != 0 || !self.digits.is_empty()) {
                self.digits.push(d);
                self.exponent -= i64::from(fraction);
            } else if self.digits.is_empty() {
                self.exponent -= i64::from(fraction); // a leading zero
            } else {
                self.rest |= d != 0;
                self.exponent += i64::from(!fraction);
            }
        }
        *at - start
    }

    fn to_f32(&self) -> f32 {
        if self.digits.is_empty() {
            return 0.0;
        }
        // The power of ten of the leading digit: f32 reaches 3.4e38 and, rounded, 1.4e-45.
        let lead = self.digits.len() as i64 - 1 + self.exponent;
        if lead > 38 {
            return f32::INFINITY;
        }
        if lead < -46 {
            return 0.0;
        }
        // The value is num / den.
        let mut num = Big::default();
        for &d in &self.digits {
            num.mul_add(10, d.into());
        }
        let mut den = Big(vec![1]);
        let scaled = if self.exponent >= 0 {
            &mut num
        } else {
            &mut den
        };
        for _ in 0..self.exponent.unsigned_abs() {
            scaled.mul_add(10, 0);
        }
        // Its power of two: 2^e <= num / den < 2^(e + 1).
        let mut e = num.bits() - den.bits();
        if num.shl((-e).max(0) as usize) < den.shl(e.max(0) as usize) {
            e -= 1;
        }
        if e > 127 {
            return f32::INFINITY;
        }
        // 25 bits (24 and the one that rounds) at the normal exponent, or the subnormals'.
        let e = e.max(-126);
        let shift = 24 - e;
        let (mut num, den) = (
            num.shl(shift.max(0) as usize),
            den.shl((-shift).max(0) as usize),
        );
        let mut bits = 0u32;
        for i in (0..25).rev() {
            let part = den.shl(i);
            if num >= part {
                num.sub(&part);
                bits |= 1 << i;
            }
        }
        let inexact = self.rest || num != Big::default();
        let (mut q, half) = (bits >> 1, bits & 1 == 1);
        if half && (inexact || q & 1 == 1) {
            q += 1;
        }
        // The exponent field plus the significand (its implicit bit adds one to the field; a
        // carry out of 24 bits, two), which also gives the subnormals, and infinity past f32::MAX.
        f32::from_bits((((e + 126) as u32) << 23) + q)
    }
}

/// A natural number: 32-bit limbs, least significant first, no zero limb at the top.
#[derive(Clone, Default, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    /// `self * m + a`.
    fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    /// The number of bits, up to the highest one.
    fn bits(&self) -> i64 {
        self.0.last().map_or(0, |top| {
            32 * self.0.len() as i64 - i64::from(top.leading_zeros())
        })
    }

    /// `self * 2^n`.
    fn shl(&self, n: usize) -> Big {
        if self.0.is_empty() {
            return Big::default();
        }
        let (limbs, bits) = (n / 32, n % 32);
        let mut out = vec![0; limbs];
        let mut carry = 0;
        for &limb in &self.0 {
            let v = u64::from(limb) << bits | carry;
            out.push(v as u32);
            carry = v >> 32;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        Big(out)
    }

    /// `self - b`, where `b <= self`.
    fn sub(&mut self, b: &Big) {
        let mut borrow = false;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let (v, o1) = limb.overflowing_sub(b.0.get(i).copied().unwrap_or(0));
            let (v, o2) = v.overflowing_sub(u32::from(borrow));
            *limb = v;
            borrow = o1 || o2;
        }
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Big {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.0.len().cmp(&other.0.len()))
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

#[cfg(test)]
mod tests {
    use super::parse_f32;

    /// xorshift64*, for reproducible cases.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// Whether the tokenizer cuts `text` as a number: it starts with a digit or a point, and
    /// a sign follows an `e`.
    fn cut(text: &str) -> bool {
        let b = text.as_bytes();
        b.first().is_some_and(|c| c.is_ascii_digit() || *c == b'.')
            && (1..b.len()).all(|i| !matches!(b[i], b'+' | b'-') || matches!(b[i - 1], b'e' | b'E'))
    }

    fn same(text: &str) {
        if !cut(text) {
            assert_eq!(parse_f32(text), None, "{text}");
            return;
        }
        let std = text.parse::<f32>().ok().map(f32::to_bits);
        assert_eq!(parse_f32(text).map(f32::to_bits), std, "{text}");
    }

    #[test]
    fn reads_what_parse_reads() {
        for text in [
            "0",
            "00",
            "0.0",
            ".5",
            "5.",
            ".",
            "",
            "e5",
            "1e",
            "1e+",
            "1e-",
            "1.2.3",
            "1ee5",
            "1e5e5",
            "1.e5",
            ".5E-3",
            "1e+5",
            "0.1",
            "3.4028235e38",
            "3.4028236e38",
            "3.40282357e38",
            "1e39",
            "1e38",
            "1.4e-45",
            "7.006e-46",
            "7.0064923216240854e-46",
            "7e-46",
            "1e-46",
            "1e-45",
            "1.1754942e-38",
            "16777217",
            "16777219",
            "1e0000000000000000000000005",
            "1e99999999999999999999",
            "1e-99999999999999999999",
            "0e99999999",
            "1-",
            "123456789012345678901234567890",
            "0.000000000000000000000000000000000000001",
        ] {
            same(text);
        }
        same(&format!("1{}e-300", "0".repeat(300)));
        same(&format!("0.{}1e300", "0".repeat(300)));
        same(&format!("1.{}1", "0".repeat(500)));
    }

    #[test]
    fn random_strings_and_numbers() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let alphabet = b"0123456789012345.eE+-";
        for _ in 0..200_000 {
            let len = 1 + rng.below(12) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize] as char)
                .collect();
            same(&text);
        }
        for _ in 0..200_000 {
            let digits = 1 + rng.below(40) as usize;
            let mut text: String = (0..digits)
                .map(|_| char::from(b'0' + rng.below(10) as u8))
                .collect();
            if rng.below(2) == 0 {
                text.insert(rng.below(digits as u64 + 1) as usize, '.');
            }
            let exponent = rng.below(100) as i64 - 60;
            same(&format!("{text}e{exponent}"));
        }
    }

    #[test]
    fn halfway_points_round_to_even() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        for n in 0..100_000 {
            // Every exponent, subnormals and the largest finite value among them.
            let bits = match n {
                0 => 0,
                1 => 0x7f7f_ffff,
                _ => rng.below(0x7f80_0000) as u32,
            };
            let (low, high) = (
                f64::from(f32::from_bits(bits)),
                f64::from(f32::from_bits(bits + 1)),
            );
            let high = if bits == 0x7f7f_ffff {
                2f64.powi(128)
            } else {
                high
            };
            let half = (low + high) / 2.0; // exact: 25 significant bits
            let exact = format!("{half:.130e}");
            same(&exact);
            let (mantissa, exponent) = exact.split_once('e').expect("an exponent");
            for last in ["1", "9"] {
                same(&format!(
                    "{}{last}e{exponent}",
                    &mantissa[..mantissa.len() - 1]
                ));
            }
            let digits = mantissa.trim_end_matches('0');
            let (front, last) = digits.split_at(digits.len() - 1);
            let below = (last.as_bytes()[0] - 1) as char;
            if !front.is_empty() || below != '0' {
                same(&format!("{front}{below}9999e{exponent}"));
            }
            same(&format!("{half:e}"));
        }
    }
}
