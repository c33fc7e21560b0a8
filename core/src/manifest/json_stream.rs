//! JSON documents handed over one at a time, like `block_yaml::decode_each` for YAML: each
//! top-level value of a JSON stream, and each item of a `kind: *List` (what `kubectl get -o json`
//! writes: one List of every object) as soon as it is read, so a 20,000-pod List never sits in
//! memory as one tree.
//!
//! `kubectl` writes a List's keys in order (`apiVersion`, `items`, `kind`), so the items come
//! before the `kind` that says they are a List's. They are handed over as List items anyway, and
//! a `kind` that turns out not to be a List's (or an `items` that is not a list) fails the read:
//! the caller then starts over with the whole-text decoder, which also reports every error. The
//! values are exactly `strict_json`'s (duplicate keys refused at any depth, the top level's too).

use super::strict_json::Strict;
use super::typed::PodDoc;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::fmt;

/// What the reader hands over, in input order.
// A part is moved once, to the caller; boxing the typed Pod would allocate once per Pod.
#[allow(clippy::large_enum_variant)]
pub enum Part<'t> {
    /// The `i`-th item of the current top-level List, as soon as it is read.
    Item(usize, Value),
    /// The `i`-th item of the current top-level List when it is a plain Pod of the typed shape
    /// (asked for with `typed`), with its text: no tree is built for it. The caller lowers it the
    /// typed way or, when that declines, decodes the text as [`Part::Item`] would have.
    Pod(usize, PodDoc<'t>, &'t str),
    /// A whole top-level value (an object that is not a List, an array, a scalar): the caller
    /// splits it.
    Whole(Value),
    /// The end of a top-level List whose items were handed over.
    ListEnd,
}

/// Reads the top-level values of `text` in order, handing over each part as it is read. `Err`
/// (any JSON error, a List-like object that is not one) means the caller must start over with
/// the whole-text decoder.
pub fn decode_each<'t>(text: &'t str, typed: bool, each: &mut dyn FnMut(Part<'t>)) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let part = TopSeed { each: &mut *each, typed }.deserialize(&mut de)?;
    each(part);
    // One value (kubectl's List, or one object) is the common case. serde_json's `Deserializer`
    // tells no offset, and asking it whether more follows builds an error that counts lines
    // from the start (quadratic over a stream of many values), so the values after the first
    // are read by the stream reader, each whole (Lists among them are not split as read).
    if de.end().is_ok() {
        return Ok(());
    }
    let mut skip = serde_json::Deserializer::from_str(text).into_iter::<de::IgnoredAny>();
    skip.next().transpose()?;
    for value in serde_json::Deserializer::from_str(&text[skip.byte_offset()..]).into_iter::<Strict>() {
        each(Part::Whole(value?.0));
    }
    Ok(())
}

struct TopSeed<'f, 't> {
    each: &'f mut dyn FnMut(Part<'t>),
    typed: bool,
}

impl<'t> DeserializeSeed<'t> for TopSeed<'_, 't> {
    type Value = Part<'t>;

    fn deserialize<D: Deserializer<'t>>(self, d: D) -> Result<Part<'t>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'t> Visitor<'t> for TopSeed<'_, 't> {
    type Value = Part<'t>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON document")
    }

    fn visit_map<A: MapAccess<'t>>(self, mut map: A) -> Result<Part<'t>, A::Error> {
        let mut out = Map::new();
        let mut streamed = false;
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) || (streamed && key == "items") {
                return Err(de::Error::custom(format!("duplicate field {key:?}")));
            }
            let kind_not_list = out.get("kind").is_some_and(|k| !k.as_str().is_some_and(|k| k.ends_with("List")));
            if key == "items" && !kind_not_list {
                map.next_value_seed(ItemsSeed { each: &mut *self.each, typed: self.typed })?;
                streamed = true;
                continue;
            }
            let Strict(v) = map.next_value()?;
            out.insert(key, v);
        }
        if !streamed {
            return Ok(Part::Whole(Value::Object(out)));
        }
        // Items were handed over as a List's: the object must be one.
        match out.get("kind").and_then(Value::as_str) {
            Some(k) if k.ends_with("List") => Ok(Part::ListEnd),
            _ => Err(de::Error::custom("`items` of an object that is not a List")),
        }
    }

    fn visit_seq<A: SeqAccess<'t>>(self, mut seq: A) -> Result<Part<'t>, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Part::Whole(Value::Array(out)))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Part<'t>, E> {
        Ok(Part::Whole(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Part<'t>, E> {
        Ok(Part::Whole(Value::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Part<'t>, E> {
        Ok(Part::Whole(Value::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Part<'t>, E> {
        Ok(Part::Whole(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Part<'t>, E> {
        Ok(Part::Whole(Value::String(v.to_owned())))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Part<'t>, E> {
        Ok(Part::Whole(Value::Null))
    }
}

/// A List's `items`: each element handed over as read. Anything but a list fails the read.
struct ItemsSeed<'f, 't> {
    each: &'f mut dyn FnMut(Part<'t>),
    typed: bool,
}

impl<'t> DeserializeSeed<'t> for ItemsSeed<'_, 't> {
    type Value = ();

    fn deserialize<D: Deserializer<'t>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'t> Visitor<'t> for ItemsSeed<'_, 't> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of items")
    }

    fn visit_seq<A: SeqAccess<'t>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        if self.typed {
            // Each item's text first (a cheap scan), then the typed shape from it; an item of
            // another shape is decoded from its text as below (the same strict tree).
            while let Some(raw) = seq.next_element::<&'t RawValue>()? {
                let text = raw.get();
                match PodDoc::of_json(text) {
                    Some(pod) => (self.each)(Part::Pod(i, pod, text)),
                    None => {
                        let Strict(v) = serde_json::from_str(text).map_err(de::Error::custom)?;
                        (self.each)(Part::Item(i, v));
                    }
                }
                i += 1;
            }
            return Ok(());
        }
        while let Some(Strict(v)) = seq.next_element()? {
            (self.each)(Part::Item(i, v));
            i += 1;
        }
        Ok(())
    }
}
