//! Monoids: the element type, identity and combine function that reduce and scan work with,
//! as WGSL text. Built-ins (add, min, max over u32, i32, f32) use the hardware's subgroup
//! instructions where they exist; custom monoids (the caller's WGSL) use shuffle-based
//! subgroup scans, which are right for any associative combine, commutative or not.

use crate::error::{Error, Result};

/// A 32-bit scalar type wavekit's built-in operations work on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scalar {
    /// `u32`
    U32,
    /// `i32`
    I32,
    /// `f32`
    F32,
}

impl Scalar {
    /// The WGSL type name.
    pub fn wgsl(self) -> &'static str {
        match self {
            Scalar::U32 => "u32",
            Scalar::I32 => "i32",
            Scalar::F32 => "f32",
        }
    }
}

/// A built-in operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Sum (wrapping for integers).
    Add,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
}

impl Op {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Min => "min",
            Op::Max => "max",
        }
    }
}

/// Host types that map to a WGSL scalar.
pub trait Element: bytemuck::Pod + Send + Sync + std::fmt::Debug + PartialEq {
    /// The WGSL scalar.
    const SCALAR: Scalar;
}
impl Element for u32 {
    const SCALAR: Scalar = Scalar::U32;
}
impl Element for i32 {
    const SCALAR: Scalar = Scalar::I32;
}
impl Element for f32 {
    const SCALAR: Scalar = Scalar::F32;
}

/// An associative operation with an identity, in WGSL.
#[derive(Clone, Debug, PartialEq)]
pub struct Monoid {
    name: String,
    ty: String,
    words: u32,
    identity: String,
    combine: String,
    commutative: bool,
    builtin: Option<(Scalar, Op)>,
    /// A lane-wise sum of a vector, which the hardware's subgroup additions take as they take
    /// scalars.
    vector_sum: bool,
}

/// The element types a monoid may have: 32-bit scalars and vectors of them (a struct can be
/// packed into a `vec4<u32>` with bitcasts).
fn type_words(ty: &str) -> Option<u32> {
    let t: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    if matches!(t.as_str(), "u32" | "i32" | "f32") {
        return Some(1);
    }
    for (n, prefix) in [(2, "vec2<"), (3, "vec3<"), (4, "vec4<")] {
        if let Some(inner) = t.strip_prefix(prefix).and_then(|r| r.strip_suffix('>'))
            && matches!(inner, "u32" | "i32" | "f32")
        {
            return Some(n);
        }
    }
    None
}

impl Monoid {
    /// A built-in operator on a scalar type.
    pub fn builtin(scalar: Scalar, op: Op) -> Self {
        let t = scalar.wgsl();
        let identity = match (scalar, op) {
            (Scalar::U32, Op::Add) => "0u",
            (Scalar::I32, Op::Add) => "0i",
            (Scalar::F32, Op::Add) => "0.0f",
            (Scalar::U32, Op::Min) => "0xffffffffu",
            (Scalar::U32, Op::Max) => "0u",
            (Scalar::I32, Op::Min) => "2147483647i",
            (Scalar::I32, Op::Max) => "bitcast<i32>(0x80000000u)",
            (Scalar::F32, Op::Min) => "bitcast<f32>(0x7f800000u)",
            (Scalar::F32, Op::Max) => "bitcast<f32>(0xff800000u)",
        };
        let combine = match op {
            Op::Add => "a + b",
            Op::Min => "min(a, b)",
            Op::Max => "max(a, b)",
        };
        Self {
            name: format!("{}_{t}", op.name()),
            ty: t.into(),
            words: 1,
            identity: identity.into(),
            combine: combine.into(),
            commutative: true,
            builtin: Some((scalar, op)),
            vector_sum: false,
        }
    }

    /// A caller's monoid: element type `ty` (a 32-bit scalar or a vector of them), an
    /// `identity` expression, and a `combine` expression in `a` and `b` (associative; say
    /// whether it is also commutative: reduce then takes a faster path).
    ///
    /// ```
    /// use wavekit_gpu::monoid::Monoid;
    /// // Count and sum in one pass.
    /// let m = Monoid::custom("count_sum", "vec2<u32>", "vec2<u32>(0u)", "a + b", true)?;
    /// // The minimum with its index: x = value bits (order-preserving for u32), y = index.
    /// let argmin = Monoid::custom(
    ///     "argmin", "vec2<u32>", "vec2<u32>(0xffffffffu, 0xffffffffu)",
    ///     "select(a, b, b.x < a.x || (b.x == a.x && b.y < a.y))", true)?;
    /// # let _ = (m, argmin);
    /// # Ok::<(), wavekit_gpu::Error>(())
    /// ```
    pub fn custom(
        name: &str,
        ty: &str,
        identity: &str,
        combine: &str,
        commutative: bool,
    ) -> Result<Self> {
        let words = type_words(ty).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "monoid '{name}': element type '{ty}' is not supported; use u32, i32, f32 or a \
                 vec2/vec3/vec4 of them (pack a struct into vec4<u32> with bitcast)"
            ))
        })?;
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(Error::InvalidArgument(format!(
                "monoid name '{name}': use letters, digits and '_'"
            )));
        }
        Ok(Self {
            name: name.into(),
            ty: ty.trim().into(),
            words,
            identity: identity.into(),
            combine: combine.into(),
            commutative,
            builtin: None,
            vector_sum: false,
        })
    }

    /// Lane-wise sums of `vec{lanes}<u32>` (2 to 4 lanes, wrapping): with subgroups, the
    /// hardware's subgroup additions, which take vectors as they take scalars (counters packed
    /// in a vector are scanned in one operation, not one shuffle a step).
    pub fn vector_sum(lanes: u32) -> Result<Self> {
        if !(2..=4).contains(&lanes) {
            return Err(Error::InvalidArgument(format!(
                "vector sum of {lanes} lanes: use 2, 3 or 4"
            )));
        }
        let ty = format!("vec{lanes}<u32>");
        Ok(Self {
            vector_sum: true,
            ..Self::custom(
                &format!("sum_vec{lanes}u32"),
                &ty,
                &format!("{ty}(0u)"),
                "a + b",
                true,
            )?
        })
    }

    /// The monoid's name (used in shader labels and errors).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The element type's size in 32-bit words.
    pub fn words(&self) -> u32 {
        self.words
    }

    /// Whether reduce may combine in any order.
    pub fn commutative(&self) -> bool {
        self.commutative
    }

    /// The built-in operator, if this is one.
    pub fn builtin_op(&self) -> Option<(Scalar, Op)> {
        self.builtin
    }

    /// The identity as a WGSL expression of type `T` (e.g. `0u`, `-3.40282347e+38f`).
    pub fn identity_wgsl(&self) -> &str {
        &self.identity
    }

    /// The WGSL piece imported as `monoid`: `T`, `identity`, `combine`, the subgroup hooks
    /// (`sg_inclusive`, `sg_exclusive`, `sg_exclusive_scan`, `sg_reduce`) and the bit packing used by the
    /// look-back (`to_bits`, `from_bits`, `T_WORDS`). `subgroups` picks hardware
    /// instructions or the one-lane emulation.
    pub fn wgsl(&self, subgroups: bool) -> String {
        let ty = &self.ty;
        let n = self.words;
        let (to_bits, from_bits) = match n {
            1 => (
                "vec4<u32>(bitcast<u32>(v), 0u, 0u, 0u)".to_string(),
                format!("bitcast<{ty}>(b.x)"),
            ),
            2 => (
                "vec4<u32>(bitcast<vec2<u32>>(v), 0u, 0u)".to_string(),
                format!("bitcast<{ty}>(b.xy)"),
            ),
            3 => (
                "vec4<u32>(bitcast<vec3<u32>>(v), 0u)".to_string(),
                format!("bitcast<{ty}>(b.xyz)"),
            ),
            _ => (
                "bitcast<vec4<u32>>(v)".to_string(),
                format!("bitcast<{ty}>(b)"),
            ),
        };
        let hw_op = if self.vector_sum {
            subgroups.then_some(Op::Add)
        } else {
            self.builtin.filter(|_| subgroups).map(|(_, op)| op)
        };
        let inclusive = match hw_op {
            Some(Op::Add) => "subgroupInclusiveAdd(x)",
            _ => "sg_inclusive_shuffle(x, lane, size)",
        };
        let exclusive = match hw_op {
            Some(Op::Add) => "subgroupExclusiveAdd(x)",
            _ => "sg_exclusive_shuffle(incl, lane)",
        };
        let exclusive_scan = match hw_op {
            Some(Op::Add) => "subgroupExclusiveAdd(x)",
            _ => "sg_exclusive_shuffle(sg_inclusive_shuffle(x, lane, size), lane)",
        };
        let reduce = match hw_op {
            Some(Op::Add) => "subgroupAdd(x)",
            Some(Op::Min) => "subgroupMin(x)",
            Some(Op::Max) => "subgroupMax(x)",
            None => "sg_last(sg_inclusive_shuffle(x, lane, size), size)",
        };
        let identity = &self.identity;
        let combine = &self.combine;
        format!(
            "// monoid '{name}'\n\
             alias T = {ty};\n\
             const T_WORDS: u32 = {n}u;\n\
             fn identity() -> T {{\n    return {identity};\n}}\n\
             fn combine(a: T, b: T) -> T {{\n    return {combine};\n}}\n\
             fn to_bits(v: T) -> vec4<u32> {{\n    return {to_bits};\n}}\n\
             fn from_bits(b: vec4<u32>) -> T {{\n    return {from_bits};\n}}\n\
             fn sg_inclusive(x: T, lane: u32, size: u32) -> T {{\n    return {inclusive};\n}}\n\
             fn sg_exclusive(x: T, incl: T, lane: u32) -> T {{\n    return {exclusive};\n}}\n\
             fn sg_exclusive_scan(x: T, lane: u32, size: u32) -> T {{\n    return {exclusive_scan};\n}}\n\
             fn sg_reduce(x: T, lane: u32, size: u32) -> T {{\n    return {reduce};\n}}\n",
            name = self.name,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_types_are_checked() {
        assert!(Monoid::custom("ok", "vec2< u32 >", "vec2<u32>(0u)", "a + b", true).is_ok());
        let e = Monoid::custom("bad", "MyStruct", "MyStruct()", "a", false).unwrap_err();
        assert!(
            e.to_string().contains("pack a struct into vec4<u32>"),
            "{e}"
        );
        let e = Monoid::custom("no spaces", "u32", "0u", "a + b", true).unwrap_err();
        assert!(e.to_string().contains("letters, digits"), "{e}");
    }

    #[test]
    fn vector_sums_use_hardware_additions() {
        let m = Monoid::vector_sum(4).unwrap();
        assert!(m.wgsl(true).contains("subgroupExclusiveAdd(x)"));
        assert!(m.wgsl(true).contains("alias T = vec4<u32>"));
        assert!(!m.wgsl(false).contains("subgroupExclusiveAdd"));
        assert_eq!(m.words(), 4);
        assert!(Monoid::vector_sum(5).is_err());
    }

    #[test]
    fn builtins_use_hardware_only_with_subgroups() {
        let m = Monoid::builtin(Scalar::F32, Op::Add);
        assert!(m.wgsl(true).contains("subgroupInclusiveAdd"));
        assert!(!m.wgsl(false).contains("subgroupInclusiveAdd"));
        let m = Monoid::builtin(Scalar::I32, Op::Min);
        assert!(m.wgsl(true).contains("subgroupMin(x)"));
        assert!(m.wgsl(true).contains("sg_inclusive_shuffle"));
    }
}
