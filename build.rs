//! Compiles `proto/a2a.proto` for the `grpc` feature: protox (a protobuf compiler in Rust,
//! so no `protoc` is needed) reads it, tonic-prost-build writes the messages and the
//! service, and the descriptors are kept for reading messages as ProtoJSON at run time.
//! Without the feature there is nothing to do.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    #[cfg(feature = "grpc")]
    grpc()?;
    Ok(())
}

#[cfg(feature = "grpc")]
fn grpc() -> Result<(), Box<dyn std::error::Error>> {
    use std::path::PathBuf;

    println!("cargo:rerun-if-changed=proto");
    let descriptors = protox::compile(["proto/a2a.proto"], ["proto"])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let bytes = prost::Message::encode_to_vec(&descriptors);
    std::fs::write(out.join("a2a_descriptors.bin"), bytes)?;
    tonic_prost_build::configure()
        .build_client(false)
        .build_transport(false)
        .codec_path("crate::server::grpc::codec::A2aCodec")
        .compile_fds(descriptors)?;
    Ok(())
}
