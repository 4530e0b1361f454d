//! Option and argument parsing in one place: JavaScript numbers, option objects and plain
//! result objects. A bad value is an [`Error::Argument`] that names it.

use std::ops::RangeInclusive;

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
    option_number(options, key)?
        .map(|v| {
            whole(
                &format!("option {key}"),
                v,
                1.0..=1e7,
                " from 1 to 10000000",
            )
        })
        .transpose()
        .map(|v| v.map(|v| v as usize))
}

/// A tolerance option: a finite number, 0 or more (0 runs every iteration), if given.
pub(super) fn option_tolerance(options: &JsValue, key: &str) -> Result<Option<f64>, Error> {
    match option_number(options, key)? {
        Some(t) if t < 0.0 => Err(Error::Argument(format!(
            "option {key} must be 0 or positive, got {t}"
        ))),
        t => Ok(t),
    }
}

/// Where WebGPU comes from (options `gpu` and `device` of `Gpgpu.create`), and the backend to
/// open: either option means WebGPU ("auto" opens it; "webgl2" is refused).
pub(super) fn gpu_source(
    options: &JsValue,
    choice: crate::gpu::Choice,
) -> Result<(crate::gpu::Choice, crate::backend::GpuSource), Error> {
    use crate::backend::{BackendKind, GpuSource};
    use crate::gpu::Choice;
    let given = |key| Some(option_value(options, key)).filter(|v| !v.is_undefined());
    let source = match (given("gpu"), given("device")) {
        (None, None) => return Ok((choice, GpuSource::Navigator)),
        (Some(gpu), None) => GpuSource::Gpu(gpu),
        (None, Some(device)) => GpuSource::Device(device),
        (Some(_), Some(_)) => {
            return Err(Error::Argument(
                "give option gpu or option device, not both".into(),
            ))
        }
    };
    if choice == Choice::Force(BackendKind::WebGl2) {
        return Err(Error::Argument(
            "options gpu and device are WebGPU's: open \"webgpu\" (or \"auto\") with them".into(),
        ));
    }
    Ok((Choice::Force(BackendKind::WebGpu), source))
}

/// A true/false option, `default` when not given; anything else is an error.
pub(super) fn option_bool_or(options: &JsValue, key: &str, default: bool) -> Result<bool, Error> {
    let v = option_value(options, key);
    match v.as_bool() {
        Some(b) => Ok(b),
        None if v.is_undefined() => Ok(default),
        None => Err(Error::Argument(format!(
            "option {key} must be true or false"
        ))),
    }
}

/// Refuses an options object that names an option `what` does not have: a misspelt option
/// (`maxIterations` for `maxIter`) would otherwise be ignored without a word. Undefined and
/// null are no options at all.
pub(super) fn known_options(options: &JsValue, what: &str, known: &[&str]) -> Result<(), Error> {
    if options.is_undefined() || options.is_null() {
        return Ok(());
    }
    let Some(object) = options.dyn_ref::<Object>().filter(|_| options.is_object()) else {
        return Err(Error::Argument(format!(
            "the options of {what} must be an object"
        )));
    };
    for key in Object::keys(object).iter() {
        let key = key.as_string().unwrap_or_default();
        if !known.contains(&key.as_str()) {
            return Err(Error::Argument(format!(
                "{what} has no option {key:?}; its options are {}",
                known.join(", ")
            )));
        }
    }
    Ok(())
}

/// A plain JS object with the given properties.
pub(super) fn object(props: &[(&str, JsValue)]) -> Object {
    let obj = Object::new();
    for (k, v) in props {
        let _ = Reflect::set(&obj, &(*k).into(), v);
    }
    obj
}

/// `v` if it is a whole number in `range`, else "`name` must be a whole number`said`, got `v`"
/// (`said` states the range, or nothing where another check says more).
pub(super) fn whole(
    name: &str,
    v: f64,
    range: RangeInclusive<f64>,
    said: &str,
) -> Result<f64, Error> {
    if v.fract() == 0.0 && range.contains(&v) {
        Ok(v)
    } else {
        Err(Error::Argument(format!(
            "{name} must be a whole number{said}, got {v}"
        )))
    }
}

/// Every named number finite, else a clear error naming the first that is not (what is not a
/// number arrives from JavaScript as NaN).
pub(super) fn finite(values: &[(&str, f64)]) -> Result<(), Error> {
    match values.iter().find(|(_, v)| !v.is_finite()) {
        Some((name, v)) => Err(Error::Argument(format!(
            "{name} must be a finite number, got {v}"
        ))),
        None => Ok(()),
    }
}

/// A scalar factor from JavaScript: a finite number.
pub(super) fn factor(v: f32) -> Result<f32, Error> {
    finite(&[("the factor c", f64::from(v))])?;
    Ok(v)
}

/// A seed from JavaScript: a whole number from 0 to 2^32 - 1.
pub(super) fn seed(v: f64) -> Result<u32, Error> {
    whole("seed", v, 0.0..=f64::from(u32::MAX), " from 0 to 2^32 - 1").map(|v| v as u32)
}

/// A matrix dimension from JavaScript: a whole number from 0 (refused later as a zero
/// dimension, with its own message) to 2^31.
pub(super) fn dimension(name: &str, v: f64) -> Result<usize, Error> {
    whole(name, v, 0.0..=2_147_483_648.0, "").map(|v| v as usize)
}
