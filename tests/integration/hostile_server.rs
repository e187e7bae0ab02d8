//! An HTTP server on loopback whose every answer a function of the test makes: the hostile-input tests' (a body
//! without end, chunked or delimited by closing the connection, a `Content-Length` that lies, any status line and
//! headers), and the plain file server of the chart-source tests (`sources_support::FileServer`). What it streams is bounded on its side too (1 GiB and 60 s a
//! connection), so it stops by itself whatever the client does; it is stopped on drop.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What the server sends at most on one connection, and for how long.
const STREAM_BYTES: u64 = 1 << 30;
const STREAM_TIME: Duration = Duration::from_secs(60);

/// One request, as far as the answers need it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The path with its query.
    pub target: String,
    /// The `Host` header (for absolute URLs pointing back at the server).
    pub host: String,
    pub authorization: Option<String>,
}

impl Request {
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }
}

/// How the body's end is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `Content-Length`: the body's length, or the given number whatever is sent.
    Length(Option<u64>),
    Chunked,
    /// No length: the body ends when the connection closes.
    Close,
}

/// One answer.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The status line after `HTTP/1.1 ` (`200 OK`, or any reason phrase).
    pub status_line: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Sent again and again after `body`, until the client goes or the server's own bound.
    pub endless: Option<Vec<u8>>,
    pub framing: Framing,
}

impl Answer {
    /// `code` with a body of known length.
    pub fn new(code: u16, body: impl Into<Vec<u8>>) -> Answer {
        let reason = match code {
            200 => "OK",
            401 => "Unauthorized",
            404 => "Not Found",
            _ => "Whatever",
        };
        Answer {
            status_line: format!("{code} {reason}"),
            headers: Vec::new(),
            body: body.into(),
            endless: None,
            framing: Framing::Length(None),
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Answer {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// `body`, then `unit` without end, framed as `framing`.
    pub fn endless(mut self, unit: impl Into<Vec<u8>>, framing: Framing) -> Answer {
        self.endless = Some(unit.into());
        self.framing = framing;
        self
    }
}

type Handler = Arc<dyn Fn(&Request) -> Answer + Send + Sync>;

/// The server, on a free loopback port.
pub struct HostileServer {
    pub url: String,
    /// `host:port`.
    pub host: String,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl HostileServer {
    pub fn start(handler: impl Fn(&Request) -> Answer + Send + Sync + 'static) -> HostileServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let address = listener.local_addr().expect("address");
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Handler = Arc::new(handler);
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    let handler = handler.clone();
                    std::thread::spawn(move || serve(&handler, stream));
                }
            }
        });
        HostileServer { url: format!("http://{address}"), host: address.to_string(), stop, thread: Some(thread) }
    }
}

impl Drop for HostileServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(&self.host);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One request on one connection, answered, then the connection closed.
fn serve(handler: &Handler, mut stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let Ok(clone) = stream.try_clone() else { return };
    let mut reader = BufReader::new(clone);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut parts = line.split_whitespace();
    let mut request = Request {
        method: parts.next().unwrap_or_default().to_string(),
        target: parts.next().unwrap_or_default().to_string(),
        host: String::new(),
        authorization: None,
    };
    let mut content_length = 0usize;
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => break,
            Ok(_) if header.trim().is_empty() => break,
            Ok(_) => {
                if let Some((name, value)) = header.split_once(':') {
                    let value = value.trim().to_string();
                    match name.to_ascii_lowercase().as_str() {
                        "host" => request.host = value,
                        "authorization" => request.authorization = Some(value),
                        "content-length" => content_length = value.parse().unwrap_or(0),
                        _ => {}
                    }
                }
            }
        }
    }
    let mut discard = vec![0u8; content_length.min(1 << 20)];
    let _ = std::io::Read::read_exact(&mut reader, &mut discard);
    let answer = handler(&request);
    let _ = write_answer(&mut stream, &request, &answer);
}

fn write_answer(stream: &mut TcpStream, request: &Request, answer: &Answer) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {}\r\nConnection: close\r\n", answer.status_line);
    for (name, value) in &answer.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    match answer.framing {
        Framing::Length(length) => {
            head.push_str(&format!("Content-Length: {}\r\n", length.unwrap_or(answer.body.len() as u64)))
        }
        Framing::Chunked => head.push_str("Transfer-Encoding: chunked\r\n"),
        Framing::Close => {}
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if request.method == "HEAD" {
        return Ok(());
    }
    let chunked = answer.framing == Framing::Chunked;
    let mut send = |data: &[u8]| -> std::io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        if chunked {
            stream.write_all(format!("{:x}\r\n", data.len()).as_bytes())?;
            stream.write_all(data)?;
            stream.write_all(b"\r\n")
        } else {
            stream.write_all(data)
        }
    };
    send(&answer.body)?;
    if let Some(unit) = answer.endless.as_ref().filter(|unit| !unit.is_empty()) {
        // Units gathered into writes of about 64 KiB.
        let block: Vec<u8> = unit.iter().copied().cycle().take(unit.len() * (65_536 / unit.len()).max(1)).collect();
        let started = Instant::now();
        let mut sent = 0u64;
        while sent < STREAM_BYTES && started.elapsed() < STREAM_TIME {
            send(&block)?;
            sent += block.len() as u64;
        }
    }
    if chunked {
        stream.write_all(b"0\r\n\r\n")?;
    }
    stream.flush()
}
