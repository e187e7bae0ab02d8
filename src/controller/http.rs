//! The controller's HTTP endpoint (`--metrics-addr`): `/metrics` (Prometheus text), `/healthz` (the process
//! serves) and `/readyz` (the controller has read its Releases, or stands by for leadership). Three GET routes
//! need no web framework: one request per connection, read with a size and time limit, answered and closed.

use super::metrics::Metrics;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// The most a request head may take; longer ones are refused.
const MAX_REQUEST: usize = 8 * 1024;

/// How long a client may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// What `/readyz` reports.
#[derive(Debug, Default)]
pub struct Health {
    ready: AtomicBool,
}

impl Health {
    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::Relaxed);
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Relaxed)
    }
}

/// Serves `listener` until `shutdown`.
pub async fn serve(listener: TcpListener, metrics: Arc<Metrics>, health: Arc<Health>, shutdown: CancellationToken) {
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, _)) => {
                let metrics = metrics.clone();
                let health = health.clone();
                tokio::spawn(async move {
                    if let Err(error) = answer(stream, &metrics, &health).await {
                        tracing::debug!(%error, "metrics endpoint: request not answered");
                    }
                });
            }
            Err(error) => {
                tracing::warn!(%error, "metrics endpoint: cannot accept a connection");
                // Out of file descriptors, say: do not spin.
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

async fn answer(mut stream: TcpStream, metrics: &Metrics, health: &Health) -> std::io::Result<()> {
    let head = match tokio::time::timeout(READ_TIMEOUT, read_head(&mut stream)).await {
        Ok(head) => head?,
        Err(_) => return Ok(()),
    };
    let (status, content_type, body) = match route(&head) {
        Route::Metrics => ("200 OK", "text/plain; version=0.0.4; charset=utf-8", metrics.encode()),
        Route::Healthz => ("200 OK", "text/plain; charset=utf-8", "ok\n".to_string()),
        Route::Readyz if health.is_ready() => ("200 OK", "text/plain; charset=utf-8", "ok\n".to_string()),
        Route::Readyz => ("503 Service Unavailable", "text/plain; charset=utf-8", "not ready\n".to_string()),
        Route::NotFound => ("404 Not Found", "text/plain; charset=utf-8", "not found\n".to_string()),
        Route::BadRequest => ("400 Bad Request", "text/plain; charset=utf-8", "bad request\n".to_string()),
    };
    let head_only = head.starts_with("HEAD ");
    let mut response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if !head_only {
        response.push_str(&body);
    }
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

/// Reads until the blank line that ends a request head, at most [`MAX_REQUEST`] bytes.
async fn read_head(stream: &mut TcpStream) -> std::io::Result<String> {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buffer.windows(4).any(|window| window == b"\r\n\r\n") && buffer.len() < MAX_REQUEST {
        let read = stream.read(&mut chunk).await?;
        if read == 0 {
            break;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
    Ok(String::from_utf8_lossy(&buffer).into_owned())
}

#[derive(Debug, PartialEq, Eq)]
enum Route {
    Metrics,
    Healthz,
    Readyz,
    NotFound,
    BadRequest,
}

/// The route a request head asks for: `GET /metrics HTTP/1.1`, a query string ignored.
fn route(head: &str) -> Route {
    let mut parts = head.lines().next().unwrap_or_default().split(' ');
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else { return Route::BadRequest };
    if method != "GET" && method != "HEAD" {
        return Route::BadRequest;
    }
    match target.split('?').next().unwrap_or_default() {
        "/metrics" => Route::Metrics,
        "/healthz" => Route::Healthz,
        "/readyz" => Route::Readyz,
        _ => Route::NotFound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        let cases = [
            ("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", Route::Metrics),
            ("GET /healthz?verbose HTTP/1.1\r\n\r\n", Route::Healthz),
            ("HEAD /readyz HTTP/1.0\r\n\r\n", Route::Readyz),
            ("GET / HTTP/1.1\r\n\r\n", Route::NotFound),
            ("POST /metrics HTTP/1.1\r\n\r\n", Route::BadRequest),
            ("", Route::BadRequest),
        ];
        for (head, expected) in cases {
            assert_eq!(route(head), expected, "{head:?}");
        }
    }

    async fn get(address: std::net::SocketAddr, path: &str) -> String {
        let mut stream = TcpStream::connect(address).await.expect("connect");
        stream.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes()).await.expect("write");
        let mut response = String::new();
        stream.read_to_string(&mut response).await.expect("read");
        response
    }

    #[tokio::test]
    async fn serves_metrics_health_and_readiness() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let metrics = Arc::new(Metrics::default());
        metrics.set_releases(7);
        let health = Arc::new(Health::default());
        let shutdown = CancellationToken::new();
        let server = tokio::spawn(serve(listener, metrics, health.clone(), shutdown.clone()));
        let bounded = tokio::time::timeout(Duration::from_secs(10), async {
            let response = get(address, "/metrics").await;
            assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
            assert!(response.contains("\nberth_controller_releases 7\n"), "{response}");
            assert!(get(address, "/healthz").await.starts_with("HTTP/1.1 200 OK"));
            assert!(get(address, "/readyz").await.starts_with("HTTP/1.1 503"));
            health.set_ready(true);
            assert!(get(address, "/readyz").await.starts_with("HTTP/1.1 200 OK"));
            assert!(get(address, "/nothing").await.starts_with("HTTP/1.1 404"));
            shutdown.cancel();
            server.await.expect("the server stops");
        });
        bounded.await.expect("answers within the bound");
    }
}
