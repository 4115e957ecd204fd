//! The accept loop: hyper HTTP/1.1 connections serving the axum router, each with a handle a
//! fault can use to close that very connection (no response, or half a body).

use std::net::SocketAddr;

use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

/// Lets a handler close its own connection (put in every request's extensions).
#[derive(Clone, Debug)]
pub struct ConnControl {
    kill: CancellationToken,
}

impl ConnControl {
    /// The connection is dropped at once: nothing more is written.
    pub fn kill(&self) {
        self.kill.cancel();
    }
}

/// A running accept loop.
pub struct Server {
    pub addr: SocketAddr,
    shutdown: CancellationToken,
    tracker: TaskTracker,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    pub fn spawn(listener: TcpListener, app: Router) -> std::io::Result<Server> {
        let addr = listener.local_addr()?;
        let shutdown = CancellationToken::new();
        let tracker = TaskTracker::new();
        let accept = tokio::spawn(accept_loop(
            listener,
            app,
            shutdown.clone(),
            tracker.clone(),
        ));
        Ok(Server {
            addr,
            shutdown,
            tracker,
            accept: Some(accept),
        })
    }

    pub async fn shutdown(mut self) {
        self.shutdown.cancel();
        if let Some(accept) = self.accept.take() {
            let _ = accept.await;
        }
        self.tracker.close();
        self.tracker.wait().await;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

async fn accept_loop(
    listener: TcpListener,
    app: Router,
    shutdown: CancellationToken,
    tracker: TaskTracker,
) {
    loop {
        let stream = tokio::select! {
            _ = shutdown.cancelled() => return,
            r = listener.accept() => match r {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like: wait a little instead of spinning.
                    tracing::warn!("sandbox accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let kill = shutdown.child_token();
        let control = ConnControl { kill: kill.clone() };
        let app = app.clone();
        tracker.spawn(async move {
            let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
                req.extensions_mut().insert(control.clone());
                app.clone().oneshot(req.map(Body::new))
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = conn => {}
                _ = kill.cancelled() => {}
            }
        });
    }
}
