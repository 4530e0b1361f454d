//! Option and argument parsing in one place: JavaScript numbers, option objects and plain
//! result objects. A bad value is an [`Error::Argument`] that names it.

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::Error;

/// `options[key]`, or undefined when options is not an object.
pub(super) fn option_value(options: &JsValue, key: &str) -> JsValue {
    if options.is_object() {
        Reflect::get(options, &key.into()).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

/// A finite number option, if given.
pub(super) fn option_number(options: &JsValue, key: &str) -> Result<Option<f64>, Error> {
    let v = option_value(options, key);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(Some(x)),
        _ => Err(Error::Argument(format!(
            "option {key} must be a finite number"
        ))),
    }
}

/// A whole-number option from 1 to 10^7, if given.
pub(super) fn option_count(options: &JsValue, key: &str) -> Result<Option<usize>, Error> {
    match option_number(options, key)? {
        Some(v) if v.fract() == 0.0 && (1.0..=1e7).contains(&v) => Ok(Some(v as usize)),
        Some(v) => Err(Error::Argument(format!(
            "option {key} must be a whole number from 1 to 10000000, got {v}"
        ))),
        None => Ok(None),
    }
}

pub(super) fn option_bool(options: &JsValue, key: &str) -> bool {
    option_value(options, key).as_bool().unwrap_or(false)
}

/// A plain JS object with the given properties.
pub(super) fn object(props: &[(&str, JsValue)]) -> Object {
    let obj = Object::new();
    for (k, v) in props {
        let _ = Reflect::set(&obj, &(*k).into(), v);
    }
    obj
}

/// A scalar factor from JavaScript: a finite number (what is not a number arrives as NaN).
pub(super) fn factor(v: f32) -> Result<f32, Error> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(Error::Argument(format!(
            "the factor c must be a finite number, got {v}"
        )))
    }
}

/// A seed from JavaScript: a whole number from 0 to 2^32 - 1.
pub(super) fn seed(v: f64) -> Result<u32, Error> {
    if v.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&v) {
        Ok(v as u32)
    } else {
        Err(Error::Argument(format!(
            "seed must be a whole number from 0 to 2^32 - 1, got {v}"
        )))
    }
}

/// A matrix dimension from JavaScript: a whole number from 0 (refused later as a zero
/// dimension, with its own message) to 2^31.
pub(super) fn dimension(name: &str, v: f64) -> Result<usize, Error> {
    if v.fract() == 0.0 && (0.0..=2_147_483_648.0).contains(&v) {
        Ok(v as usize)
    } else {
        Err(Error::Argument(format!(
            "{name} must be a whole number, got {v}"
        )))
    }
}
