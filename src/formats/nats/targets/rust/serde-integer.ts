/**
 * `common.rs`'s serde part (crates generated with `--serde` only): `Integer`, the Rust type of a
 * draft-07 `type: integer`. Draft-07 counts every number with a zero fractional part as an integer
 * (`1`, `1.0`, `1e2`, `-0.0`), and the TypeScript validators accept all of them; serde's own `i64`
 * accepts only `1`. `Integer` takes any JSON number that is integral and within `i64` (the range a
 * Rust integer holds; past it the value is refused, never rounded or wrapped: an integer literal
 * below i64's minimum reads as the double -2^63, which is refused as a double), refuses `1.5`, NaN
 * and infinities, and writes itself back as a plain integer. A newtype, not a `deserialize_with`
 * function, so it holds in every position a schema can put an integer: a member, `Option`, `Vec`,
 * an alias, a channel's whole payload. Each value is O(1) to check. And `present`, for every
 * optional member (`Option<T>`): serde reads a present `null` as absent (`None`), which would
 * accept `{"m": null}` where `m` is a string and write `{"m": null}` back as `{}` where `m` may be
 * `null` or anything; `present` reads a present member with `T` itself (`null` refused by a
 * `String`, kept as `Some(None)` or `Some(Value::Null)`).
 */
export const COMMON_SERDE_RS = `
/// A JSON Schema (draft-07) integer: any JSON number with a zero fractional part (\`1\`, \`1.0\`,
/// \`1e2\`, \`-0.0\`) that fits an \`i64\`. Written back as a plain integer (\`100\`).
#[cfg(feature = "serde")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Integer(pub i64);

#[cfg(feature = "serde")]
impl From<i64> for Integer {
    fn from(value: i64) -> Self {
        Integer(value)
    }
}

#[cfg(feature = "serde")]
impl From<Integer> for i64 {
    fn from(value: Integer) -> Self {
        value.0
    }
}

#[cfg(feature = "serde")]
impl PartialEq<i64> for Integer {
    fn eq(&self, other: &i64) -> bool {
        self.0 == *other
    }
}

#[cfg(feature = "serde")]
impl fmt::Display for Integer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Integer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(self.0)
    }
}

#[cfg(feature = "serde")]
struct IntegerVisitor;

#[cfg(feature = "serde")]
impl<'de> serde::de::Visitor<'de> for IntegerVisitor {
    type Value = Integer;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer (a number with no fractional part) within i64")
    }

    fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Integer, E> {
        Ok(Integer(value))
    }

    fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Integer, E> {
        i64::try_from(value)
            .map(Integer)
            .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(value), &self))
    }

    fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Integer, E> {
        // serde_json reads an integer past i64 as the nearest double: -2^63 is also where
        // -9223372036854775809 and every integer a little below it land, so it is refused as a
        // double (written as an integer, -2^63 comes through visit_i64, exactly). Strictly inside
        // (-2^63, 2^63) the cast is exact.
        if value.is_finite()
            && value.fract() == 0.0
            && value > -9_223_372_036_854_775_808.0
            && value < 9_223_372_036_854_775_808.0
        {
            Ok(Integer(value as i64))
        } else {
            Err(E::invalid_value(serde::de::Unexpected::Float(value), &self))
        }
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Integer {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(IntegerVisitor)
    }
}

/// The members a closed schema (\`additionalProperties: false\`) allows beyond its properties:
/// none. A closed struct holds it flattened (\`extra\`), so any other member is refused, and so is a
/// JSON array: serde reads a struct with no flattened member from an array too, by position.
#[cfg(feature = "serde")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Closed;

#[cfg(feature = "serde")]
impl serde::Serialize for Closed {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde::ser::SerializeMap::end(serializer.serialize_map(Some(0))?)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Closed {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NoMembers;
        impl<'de> serde::de::Visitor<'de> for NoMembers {
            type Value = Closed;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("no members beyond the schema's properties")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Closed, A::Error> {
                match map.next_key::<String>()? {
                    Some(key) => Err(serde::de::Error::custom(format_args!(
                        "unknown field \`{}\`",
                        key
                    ))),
                    None => Ok(Closed),
                }
            }
        }
        deserializer.deserialize_map(NoMembers)
    }
}

/// No JSON value is one: the type of a member a closed schema requires but does not describe (so
/// may not hold either); no object meets such a schema, and its struct reads none.
#[cfg(feature = "serde")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Nothing {}

/// For an optional member (\`Option<T>\`): present is \`Some\`, read by \`T\` itself, so a present
/// \`null\` is refused where \`T\` refuses it and kept (\`Some(None)\`, \`Some(Value::Null)\`) where
/// \`T\` allows it, and written back, not dropped (absent stays \`None\`).
#[cfg(feature = "serde")]
pub fn present<'de, D: serde::Deserializer<'de>, T: serde::Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}
`
