//! The band gains of every level count the format takes (1 to 8): the energy of the
//! synthesis of a unit sample in each band, as [`super::gain_reference`] computes it with the
//! f64 reference (bit for bit: the quantizer steps, and so the bytes, depend on them). A test
//! recomputes the tables of 1 to 5 levels (the default) in every run of the test command, and all of them
//! where asked (`large_every_gain_in_the_table_is_the_reference_s`, ignored and skipped by the test command as `large_`: minutes unoptimised).

/// (levels, level, orientation: 0 LL, 1 HL, 2 LH, 3 HH; the gain's f64 bits).
pub(crate) const GAINS: &[(u8, u8, u8, u64)] = &[
    (1, 1, 0, 0x400eeb17d7a6e53b),
    (1, 1, 1, 0x3ff05cfb06fceee0),
    (1, 1, 2, 0x3ff05cfb06fceee0),
    (1, 1, 3, 0x3fd151f2dac2d213),
    (2, 1, 1, 0x3ff05cfb06fceee0),
    (2, 1, 2, 0x3ff05cfb06fceee0),
    (2, 1, 3, 0x3fd151f2dac2d213),
    (2, 2, 0, 0x4030fe8807f2763b),
    (2, 2, 1, 0x400fe5e890aceda9),
    (2, 2, 2, 0x400fe5e890acedaa),
    (2, 2, 3, 0x3fedefab26706b76),
    (3, 1, 1, 0x3ff05cfb06fceee0),
    (3, 1, 2, 0x3ff05cfb06fceee0),
    (3, 1, 3, 0x3fd151f2dac2d213),
    (3, 2, 1, 0x400fe5e890aceda9),
    (3, 2, 2, 0x400fe5e890acedaa),
    (3, 2, 3, 0x3fedefab26706b76),
    (3, 3, 0, 0x4051b5dc7d15e92b),
    (3, 3, 1, 0x40318024d9129f83),
    (3, 3, 2, 0x40318024d9129f89),
    (3, 3, 3, 0x40114b10231e6b09),
    (4, 1, 1, 0x3ff05cfb06fceee0),
    (4, 1, 2, 0x3ff05cfb06fceee0),
    (4, 1, 3, 0x3fd151f2dac2d213),
    (4, 2, 1, 0x400fe5e890aceda9),
    (4, 2, 2, 0x400fe5e890acedaa),
    (4, 2, 3, 0x3fedefab26706b76),
    (4, 3, 1, 0x40318024d9129f83),
    (4, 3, 2, 0x40318024d9129f89),
    (4, 3, 3, 0x40114b10231e6b09),
    (4, 4, 0, 0x4071ed0482f1b089),
    (4, 4, 1, 0x4052353131b23aea),
    (4, 4, 2, 0x4052353131b23ae1),
    (4, 4, 3, 0x40327e8078cc212e),
    (5, 1, 1, 0x3ff05cfb06fceee0),
    (5, 1, 2, 0x3ff05cfb06fceee0),
    (5, 1, 3, 0x3fd151f2dac2d213),
    (5, 2, 1, 0x400fe5e890aceda9),
    (5, 2, 2, 0x400fe5e890acedaa),
    (5, 2, 3, 0x3fedefab26706b76),
    (5, 3, 1, 0x40318024d9129f83),
    (5, 3, 2, 0x40318024d9129f89),
    (5, 3, 3, 0x40114b10231e6b09),
    (5, 4, 1, 0x4052353131b23aea),
    (5, 4, 2, 0x4052353131b23ae1),
    (5, 4, 3, 0x40327e8078cc212e),
    (5, 5, 0, 0x4091fb9a463b25ef),
    (5, 5, 1, 0x40726b24c14b79e8),
    (5, 5, 2, 0x40726b24c14b79c9),
    (5, 5, 3, 0x4052dd6315775f23),
    (6, 1, 1, 0x3ff05cfb06fceee0),
    (6, 1, 2, 0x3ff05cfb06fceee0),
    (6, 1, 3, 0x3fd151f2dac2d213),
    (6, 2, 1, 0x400fe5e890aceda9),
    (6, 2, 2, 0x400fe5e890acedaa),
    (6, 2, 3, 0x3fedefab26706b76),
    (6, 3, 1, 0x40318024d9129f83),
    (6, 3, 2, 0x40318024d9129f89),
    (6, 3, 3, 0x40114b10231e6b09),
    (6, 4, 1, 0x4052353131b23aea),
    (6, 4, 2, 0x4052353131b23ae1),
    (6, 4, 3, 0x40327e8078cc212e),
    (6, 5, 1, 0x40726b24c14b79e8),
    (6, 5, 2, 0x40726b24c14b79c9),
    (6, 5, 3, 0x4052dd6315775f23),
    (6, 6, 0, 0x40b1ff4f3f9085a8),
    (6, 6, 1, 0x4092795e4cea32ad),
    (6, 6, 2, 0x4092795e4cea331c),
    (6, 6, 3, 0x4072f6a929a9b325),
    (7, 1, 1, 0x3ff05cfb06fceee0),
    (7, 1, 2, 0x3ff05cfb06fceee0),
    (7, 1, 3, 0x3fd151f2dac2d213),
    (7, 2, 1, 0x400fe5e890aceda9),
    (7, 2, 2, 0x400fe5e890acedaa),
    (7, 2, 3, 0x3fedefab26706b76),
    (7, 3, 1, 0x40318024d9129f83),
    (7, 3, 2, 0x40318024d9129f89),
    (7, 3, 3, 0x40114b10231e6b09),
    (7, 4, 1, 0x4052353131b23aea),
    (7, 4, 2, 0x4052353131b23ae1),
    (7, 4, 3, 0x40327e8078cc212e),
    (7, 5, 1, 0x40726b24c14b79e8),
    (7, 5, 2, 0x40726b24c14b79c9),
    (7, 5, 3, 0x4052dd6315775f23),
    (7, 6, 1, 0x4092795e4cea32ad),
    (7, 6, 2, 0x4092795e4cea331c),
    (7, 6, 3, 0x4072f6a929a9b325),
    (7, 7, 0, 0x40d2003d9b889946),
    (7, 7, 1, 0x40b27cfb17dbfe45),
    (7, 7, 2, 0x40b27cfb17dbfe73),
    (7, 7, 3, 0x4092fd18fc000a71),
    (8, 1, 1, 0x3ff05cfb06fceee0),
    (8, 1, 2, 0x3ff05cfb06fceee0),
    (8, 1, 3, 0x3fd151f2dac2d213),
    (8, 2, 1, 0x400fe5e890aceda9),
    (8, 2, 2, 0x400fe5e890acedaa),
    (8, 2, 3, 0x3fedefab26706b76),
    (8, 3, 1, 0x40318024d9129f83),
    (8, 3, 2, 0x40318024d9129f89),
    (8, 3, 3, 0x40114b10231e6b09),
    (8, 4, 1, 0x4052353131b23aea),
    (8, 4, 2, 0x4052353131b23ae1),
    (8, 4, 3, 0x40327e8078cc212e),
    (8, 5, 1, 0x40726b24c14b79e8),
    (8, 5, 2, 0x40726b24c14b79c9),
    (8, 5, 3, 0x4052dd6315775f23),
    (8, 6, 1, 0x4092795e4cea32ad),
    (8, 6, 2, 0x4092795e4cea331c),
    (8, 6, 3, 0x4072f6a929a9b325),
    (8, 7, 1, 0x40b27cfb17dbfe45),
    (8, 7, 2, 0x40b27cfb17dbfe73),
    (8, 7, 3, 0x4092fd18fc000a71),
    (8, 8, 0, 0x40f200794651f9af),
    (8, 8, 1, 0x40d27de3544ab0e8),
    (8, 8, 2, 0x40d27de3544ab0d2),
    (8, 8, 3, 0x40b2feb71ce951d7),
];

/// The gain of band (`level`, `orientation`) of a frame of `levels` levels, if tabled.
pub(crate) fn lookup(levels: u8, level: u8, orientation: u8) -> Option<f64> {
    GAINS
        .iter()
        .find(|g| (g.0, g.1, g.2) == (levels, level, orientation))
        .map(|g| f64::from_bits(g.3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Orientation;

    fn check(most: u8) {
        let o = [
            Orientation::Ll,
            Orientation::Hl,
            Orientation::Lh,
            Orientation::Hh,
        ];
        let mut n = 0;
        for levels in 1..=most {
            for level in 1..=levels {
                for (k, &or) in o.iter().enumerate() {
                    if k == 0 && level != levels {
                        continue;
                    }
                    let want = super::super::gain_reference(levels, level, or);
                    let got = lookup(levels, level, k as u8);
                    assert_eq!(
                        got.map(f64::to_bits),
                        Some(want.to_bits()),
                        "{levels} levels, band {level} {or:?}"
                    );
                    n += 1;
                }
            }
        }
        assert_eq!(n, (1..=most as usize).map(|l| 3 * l + 1).sum::<usize>());
    }

    #[test]
    fn the_gains_of_up_to_five_levels_are_the_reference_s() {
        check(5);
        assert_eq!(GAINS.len(), (1..=8).map(|l| 3 * l + 1).sum::<usize>());
    }

    #[test]
    #[ignore = "minutes unoptimised: cargo test --release -p wavekit-codec -- --ignored large_every_gain"]
    fn large_every_gain_in_the_table_is_the_reference_s() {
        check(8);
    }
}
