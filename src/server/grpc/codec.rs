//! The protobuf codec of the gRPC service: prost's, except that a message that does not
//! decode (bad wire format, invalid UTF-8 in a string, nesting past prost's depth limit) is
//! the client's fault, `INVALID_ARGUMENT`, where tonic's own codec answers `INTERNAL`.

use std::marker::PhantomData;

use prost::Message;
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

/// The codec the generated service uses for every method (`codec_path` in `build.rs`).
#[derive(Debug)]
pub(crate) struct A2aCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for A2aCodec<T, U> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

impl<T, U> Codec for A2aCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = A2aEncoder<T>;
    type Decoder = A2aDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        A2aEncoder(PhantomData)
    }

    fn decoder(&mut self) -> Self::Decoder {
        A2aDecoder(PhantomData)
    }
}

/// Writes a message; tonic's buffer grows to fit, so writing cannot fail.
#[derive(Debug)]
pub(crate) struct A2aEncoder<T>(PhantomData<T>);

impl<T: Message> Encoder for A2aEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        item.encode(buf)
            .map_err(|_| Status::internal("Internal error"))
    }
}

/// Reads a message; one that does not decode is `INVALID_ARGUMENT`.
#[derive(Debug)]
pub(crate) struct A2aDecoder<U>(PhantomData<U>);

impl<U: Message + Default> Decoder for A2aDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        U::decode(buf)
            .map(Some)
            .map_err(|error| Status::invalid_argument(format!("Invalid request message: {error}")))
    }
}
