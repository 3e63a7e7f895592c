//! An SMTP server on loopback for tests: it speaks enough SMTP (EHLO or HELO, MAIL, RCPT, DATA, RSET, NOOP,
//! QUIT; no TLS, no AUTH) to take messages, and hands each to the test with its envelope.

use std::{net::SocketAddr, time::Duration};

use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    net::{TcpListener, TcpStream},
    sync::mpsc,
};

/// One message taken.
#[derive(Clone, Debug)]
pub struct Mail {
    /// `MAIL FROM`'s address.
    pub from: String,
    /// Every `RCPT TO` address.
    pub to: Vec<String>,
    /// The message as sent (headers and body, CRLF line ends, dots unstuffed).
    pub data: String,
}

impl Mail {
    /// A header's value (the first of that name, unfolded), `None` if absent.
    pub fn header(&self, name: &str) -> Option<String> {
        let head = self.data.split("\r\n\r\n").next().unwrap_or_default();
        let mut value: Option<String> = None;
        for line in head.split("\r\n") {
            if line.starts_with([' ', '\t']) {
                if let Some(v) = &mut value {
                    v.push(' ');
                    v.push_str(line.trim());
                    continue;
                }
            } else if value.is_some() {
                break;
            }
            if let Some((n, v)) = line.split_once(':')
                && n.eq_ignore_ascii_case(name)
            {
                value = Some(v.trim().to_owned());
            }
        }
        value
    }

    /// The message's text with quoted-printable soft line breaks and `=XX` escapes decoded (enough to find a
    /// link in a part that was written quoted-printable).
    pub fn decoded(&self) -> String {
        let unfolded = self.data.replace("=\r\n", "");
        let bytes = unfolded.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match (bytes[i], hex) {
                (b'=', Some(b)) => {
                    out.push(b);
                    i += 3;
                }
                (b, _) => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// The sink; its `Debug` shows its address.
#[derive(Debug)]
pub struct SmtpSink {
    pub addr: SocketAddr,
    mails: mpsc::UnboundedReceiver<Mail>,
}

impl SmtpSink {
    pub async fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, mails) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let tx = tx.clone();
                tokio::spawn(async move {
                    let _ = session(socket, &tx).await;
                });
            }
        });
        SmtpSink { addr, mails }
    }

    /// `SMTP_URL` for this sink (plain SMTP).
    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    /// The next message, or `None` after `wait`.
    pub async fn next(&mut self, wait: Duration) -> Option<Mail> {
        tokio::time::timeout(wait, self.mails.recv()).await.ok().flatten()
    }
}

fn address(arg: &str) -> String {
    let start = arg.find('<').map_or(0, |i| i + 1);
    let end = arg.rfind('>').unwrap_or(arg.len());
    arg.get(start..end).unwrap_or_default().to_owned()
}

async fn session(socket: TcpStream, tx: &mpsc::UnboundedSender<Mail>) -> std::io::Result<()> {
    let (read, mut write) = socket.into_split();
    let mut lines = BufReader::new(read);
    write.write_all(b"220 sink.test ESMTP\r\n").await?;
    let (mut from, mut to) = (String::new(), Vec::new());
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let command = line.trim_end();
        let verb = command.split(' ').next().unwrap_or_default().to_ascii_uppercase();
        let answer: &[u8] = match verb.as_str() {
            "EHLO" => b"250-sink.test\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n",
            "HELO" | "NOOP" => b"250 OK\r\n",
            "MAIL" => {
                from = address(command);
                to.clear();
                b"250 OK\r\n"
            }
            "RCPT" => {
                to.push(address(command));
                b"250 OK\r\n"
            }
            "RSET" => {
                from.clear();
                to.clear();
                b"250 OK\r\n"
            }
            "DATA" => {
                write.write_all(b"354 go on\r\n").await?;
                let mut data = String::new();
                loop {
                    line.clear();
                    if lines.read_line(&mut line).await? == 0 {
                        return Ok(());
                    }
                    if line == ".\r\n" {
                        break;
                    }
                    data.push_str(line.strip_prefix('.').unwrap_or(&line));
                }
                let _ = tx.send(Mail {
                    from: from.clone(),
                    to: std::mem::take(&mut to),
                    data,
                });
                b"250 queued\r\n"
            }
            "QUIT" => {
                write.write_all(b"221 bye\r\n").await?;
                return Ok(());
            }
            _ => b"502 not here\r\n",
        };
        write.write_all(answer).await?;
    }
}
