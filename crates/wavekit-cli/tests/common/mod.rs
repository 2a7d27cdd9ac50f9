//! Test support shared by the CLI's test binaries.

/// A version 1.0 `.npy` file: the header dict `dict` (padded with spaces to a multiple of 64
/// bytes, as numpy writes it) followed by `data` as it is. The dict is not checked, so tests
/// can write hostile headers too.
pub fn npy_v1(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut d = dict.as_bytes().to_vec();
    while !(10 + d.len() + 1).is_multiple_of(64) {
        d.push(b' ');
    }
    d.push(b'\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((d.len() as u16).to_le_bytes());
    out.extend(d);
    out.extend(data);
    out
}
