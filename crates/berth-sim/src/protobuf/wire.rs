//! The protobuf wire format at the level the schema-driven converters need: split a message into numbered
//! fields, and write fields back. Kubernetes messages are proto2 without groups, so wire types 3 and 4 are
//! refused rather than skipped.

/// A field's payload as the wire carries it; its meaning comes from the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WireValue<'a> {
    Varint(u64),
    Fixed64(u64),
    LengthDelimited(&'a [u8]),
    Fixed32(u32),
}

impl WireValue<'_> {
    /// The wire type's name, for errors.
    pub(super) fn type_name(&self) -> &'static str {
        match self {
            WireValue::Varint(_) => "varint",
            WireValue::Fixed64(_) => "fixed64",
            WireValue::LengthDelimited(_) => "length-delimited",
            WireValue::Fixed32(_) => "fixed32",
        }
    }
}

/// One field occurrence, in wire order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct WireField<'a> {
    pub(super) number: u32,
    pub(super) value: WireValue<'a>,
}

/// Bytes that are not a well-formed protobuf message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("unexpected EOF")]
    UnexpectedEnd,
    #[error("integer overflow: varint longer than 10 bytes")]
    VarintTooLong,
    #[error("illegal field number {0}")]
    IllegalFieldNumber(u64),
    #[error("illegal wireType {0}")]
    IllegalWireType(u64),
}

/// Splits `bytes` into its field occurrences.
///
/// # Errors
/// [`WireError`] for truncated data, overlong varints, field number 0 and wire types other than 0, 1, 2 and 5.
pub(super) fn read_fields(bytes: &[u8]) -> Result<Vec<WireField<'_>>, WireError> {
    let mut fields = Vec::new();
    let mut position = 0;
    while position < bytes.len() {
        let key = read_varint(bytes, &mut position)?;
        let number = key >> 3;
        let number = match u32::try_from(number) {
            Ok(number) if number > 0 && number < (1 << 29) => number,
            _ => return Err(WireError::IllegalFieldNumber(number)),
        };
        let value = match key & 7 {
            0 => WireValue::Varint(read_varint(bytes, &mut position)?),
            1 => WireValue::Fixed64(u64::from_le_bytes(take_array(bytes, &mut position)?)),
            2 => {
                let length = read_varint(bytes, &mut position)?;
                let length = usize::try_from(length).map_err(|_| WireError::UnexpectedEnd)?;
                WireValue::LengthDelimited(take(bytes, &mut position, length)?)
            }
            5 => WireValue::Fixed32(u32::from_le_bytes(take_array(bytes, &mut position)?)),
            other => return Err(WireError::IllegalWireType(other)),
        };
        fields.push(WireField { number, value });
    }
    Ok(fields)
}

/// Reads a packed run of varints (a repeated scalar field written as one length-delimited value).
///
/// # Errors
/// [`WireError`] for a truncated or overlong varint.
pub(super) fn read_packed_varints(bytes: &[u8]) -> Result<Vec<u64>, WireError> {
    let mut values = Vec::new();
    let mut position = 0;
    while position < bytes.len() {
        values.push(read_varint(bytes, &mut position)?);
    }
    Ok(values)
}

fn read_varint(bytes: &[u8], position: &mut usize) -> Result<u64, WireError> {
    let mut value: u64 = 0;
    for shift in (0..70).step_by(7) {
        let Some(&byte) = bytes.get(*position) else {
            return Err(WireError::UnexpectedEnd);
        };
        *position += 1;
        // Bits past the 64th are dropped, as Go's generated decoders do for the tenth byte.
        value |= u64::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
        if byte < 0x80 {
            return Ok(value);
        }
    }
    Err(WireError::VarintTooLong)
}

fn take<'a>(bytes: &'a [u8], position: &mut usize, length: usize) -> Result<&'a [u8], WireError> {
    let end = position.checked_add(length).ok_or(WireError::UnexpectedEnd)?;
    let slice = bytes.get(*position..end).ok_or(WireError::UnexpectedEnd)?;
    *position = end;
    Ok(slice)
}

fn take_array<const N: usize>(bytes: &[u8], position: &mut usize) -> Result<[u8; N], WireError> {
    let slice = take(bytes, position, N)?;
    <[u8; N]>::try_from(slice).map_err(|_| WireError::UnexpectedEnd)
}

const VARINT: u8 = 0;
const LENGTH_DELIMITED: u8 = 2;

pub(super) fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn write_key(out: &mut Vec<u8>, number: u32, wire_type: u8) {
    write_varint(out, (u64::from(number) << 3) | u64::from(wire_type));
}

/// Writes a varint field; negative integers are passed sign-extended to 64 bits, as proto2 `int32` requires.
pub(super) fn write_varint_field(out: &mut Vec<u8>, number: u32, value: u64) {
    write_key(out, number, VARINT);
    write_varint(out, value);
}

pub(super) fn write_bytes_field(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    write_key(out, number, LENGTH_DELIMITED);
    write_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_through_writer_and_reader() {
        let mut bytes = Vec::new();
        write_varint_field(&mut bytes, 1, 300);
        write_bytes_field(&mut bytes, 2, b"abc");
        write_varint_field(&mut bytes, 536_870_911, (-1_i64) as u64);
        assert_eq!(
            read_fields(&bytes),
            Ok(vec![
                WireField { number: 1, value: WireValue::Varint(300) },
                WireField { number: 2, value: WireValue::LengthDelimited(b"abc") },
                WireField { number: 536_870_911, value: WireValue::Varint(u64::MAX) },
            ])
        );
    }

    #[test]
    fn varints_match_the_protobuf_encoding() {
        let mut bytes = Vec::new();
        write_varint(&mut bytes, 300);
        assert_eq!(bytes, [0xac, 0x02]);
        let mut bytes = Vec::new();
        write_varint(&mut bytes, (-1_i64) as u64);
        assert_eq!(bytes.len(), 10);
    }

    #[test]
    fn fixed_width_fields_are_read() {
        let mut bytes = vec![0x09];
        bytes.extend_from_slice(&7_u64.to_le_bytes());
        bytes.push(0x15);
        bytes.extend_from_slice(&9_u32.to_le_bytes());
        assert_eq!(
            read_fields(&bytes),
            Ok(vec![
                WireField { number: 1, value: WireValue::Fixed64(7) },
                WireField { number: 2, value: WireValue::Fixed32(9) },
            ])
        );
    }

    #[test]
    fn malformed_input_is_an_error() {
        let cases: &[(&[u8], WireError)] = &[
            (&[0x0a, 0x05, b'a'], WireError::UnexpectedEnd),
            (&[0x08], WireError::UnexpectedEnd),
            (&[0x08, 0xff], WireError::UnexpectedEnd),
            (&[0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], WireError::VarintTooLong),
            (&[0x00, 0x01], WireError::IllegalFieldNumber(0)),
            (&[0x0b], WireError::IllegalWireType(3)),
            (&[0x0e], WireError::IllegalWireType(6)),
            (&[0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], WireError::UnexpectedEnd),
            (&[0x09, 0x01, 0x02], WireError::UnexpectedEnd),
        ];
        for (bytes, expected) in cases {
            assert_eq!(read_fields(bytes).as_ref().err(), Some(expected), "{bytes:?}");
        }
    }

    #[test]
    fn packed_varints_are_read() {
        assert_eq!(read_packed_varints(&[0x01, 0xac, 0x02]), Ok(vec![1, 300]));
        assert_eq!(read_packed_varints(&[0x80]), Err(WireError::UnexpectedEnd));
    }
}
