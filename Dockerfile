# One image for the coordinator and the workers: `hfarm serve` / `hfarm worker`.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin hfarm

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/hfarm /usr/local/bin/hfarm
COPY grids /opt/hfarm/grids
WORKDIR /opt/hfarm
USER nobody
ENTRYPOINT ["hfarm"]
CMD ["--help"]
