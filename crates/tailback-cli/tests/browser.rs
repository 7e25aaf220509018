//! The report in a real browser: headless Chromium driven over WebDriver (chromedriver) opens
//! every page from the file system and checks that every image loads, that the tables hold
//! their rows and sort when a heading is clicked, and that the console logs no error.
//!
//! Opt-in, as it needs Chromium and chromedriver: without `TAILBACK_BROWSER_TEST=1` it passes
//! at once. With it, it installs them when they are missing (`scripts/install-browser.sh`,
//! apt-get), and saves screenshots as `report-screenshot*.png` in Cargo's test temporary
//! directory (`target/tmp`).
//!
//! ```sh
//! scripts/install-browser.sh
//! TAILBACK_BROWSER_TEST=1 cargo test --release -p tailback-cli --test browser -- --nocapture
//! ```

mod common;
mod report_fixture;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

use report_fixture::{pages, report, results};

const ENABLE: &str = "TAILBACK_BROWSER_TEST";

#[test]
fn the_report_renders_in_a_real_browser() {
    if std::env::var(ENABLE).as_deref() != Ok("1") {
        println!(
            "browser test skipped: set {ENABLE}=1 to run it (scripts/install-browser.sh installs \
             Chromium and chromedriver)"
        );
        return;
    }
    let started = Instant::now();
    let (chromium, chromedriver) = browser();
    println!("browser ready in {:.1} s", started.elapsed().as_secs_f64());

    let dir = tempfile::tempdir().unwrap();
    let fixture = results(dir.path());
    let index = report(&[&fixture.results], &[]);
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture.experiment.join("summary.json")).unwrap(),
    )
    .unwrap();
    let comparisons = summary["comparisons"].as_array().unwrap().len();

    let driver = Driver::start(&chromedriver, dir.path());
    let session = driver.session(&chromium);
    session.call(
        "POST",
        "window/rect",
        Some(json!({ "width": 1280, "height": 1000 })),
    );
    let screenshots = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));

    let pages = pages(&index);
    assert_eq!(pages.len(), 3, "{pages:?}");
    for page in &pages {
        session.open(page);
        let title = session.run("return document.title;");
        println!("{}: {title}", page.display());
        // Every image loaded.
        let images = session.run(
            "return Array.from(document.images).map(function (i) { \
             return { src: i.getAttribute('src'), complete: i.complete, width: i.naturalWidth }; });",
        );
        for image in images.as_array().unwrap() {
            assert!(
                image["complete"] == true && image["width"].as_u64().unwrap_or(0) > 0,
                "{}: image not loaded: {image}",
                page.display()
            );
        }
        let slug = page
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let rows = |id: &str| session.rows(id);
        let name = if page == &index {
            let entries = rows("entries");
            assert_eq!(entries.len(), 2, "{entries:?}");
            assert!(
                entries[0][0].contains("self-tuned-fig4-quick"),
                "{entries:?}"
            );
            assert_eq!(entries[1][0], "torus");
            // A heading's second click sorts the other way.
            session.sort("entries", 0);
            session.sort("entries", 0);
            assert_eq!(rows("entries")[0][0], "torus");
            "report-screenshot.png".to_string()
        } else if slug.contains("self-tuned-fig4") {
            assert_eq!(images.as_array().unwrap().len(), 1);
            let table = rows("comparisons");
            assert_eq!(table.len(), comparisons);
            // The first comparison is an ordering over seeds; one seed is information, not a verdict.
            assert!(table[0][2].ends_with("not judged"), "{table:?}");
            assert_eq!(table[0][3], "", "{table:?}");
            format!("report-screenshot-{slug}.png")
        } else {
            assert_eq!(images.as_array().unwrap().len(), 2);
            let table = rows("curves");
            assert_eq!(table.len(), 2, "{table:?}");
            assert_eq!((table[0][0].as_str(), table[1][0].as_str()), ("0.1", "0.3"));
            session.sort("curves", 0);
            session.sort("curves", 0);
            assert_eq!(rows("curves")[0][0], "0.3");
            format!("report-screenshot-{slug}.png")
        };
        // Nothing went wrong in the page.
        let log = session.call("POST", "se/log", Some(json!({ "type": "browser" })));
        let severe: Vec<&Value> = log
            .as_array()
            .map(|entries| entries.iter().filter(|e| e["level"] == "SEVERE").collect())
            .unwrap_or_default();
        assert!(severe.is_empty(), "{}: {severe:?}", page.display());
        let png = session.screenshot();
        std::fs::write(screenshots.join(&name), png).unwrap();
    }
    // The index links to the pages: following the first link opens it.
    session.open(&index);
    session.run("document.querySelector('#entries a').click(); return null;");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let url = session.call("GET", "url", None);
        if url.as_str().unwrap().ends_with("/index.html")
            && url.as_str().unwrap().contains("/entries/")
        {
            break;
        }
        assert!(Instant::now() < deadline, "the link did not open: {url}");
        std::thread::sleep(Duration::from_millis(100));
    }
    println!(
        "browser test passed in {:.1} s; screenshots in {}",
        started.elapsed().as_secs_f64(),
        screenshots.display()
    );
}

/// `name` on the `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

/// Chromium and chromedriver, installed when missing.
fn browser() -> (PathBuf, PathBuf) {
    let found = || Some((on_path("chromium")?, on_path("chromedriver")?));
    if let Some(found) = found() {
        return found;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/install-browser.sh");
    println!(
        "chromium or chromedriver missing: running {}",
        script.display()
    );
    let status = Command::new("sh").arg(&script).status().unwrap();
    assert!(status.success(), "{} failed: {status}", script.display());
    found().expect("chromium and chromedriver on the PATH after the install")
}

/// A chromedriver process, killed when dropped.
struct Driver {
    child: Child,
    base: String,
    agent: ureq::Agent,
}

impl Driver {
    /// Starts chromedriver on a free port (its log in `dir`) and waits until it is ready.
    fn start(chromedriver: &Path, dir: &Path) -> Driver {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .arg(format!(
                "--log-path={}",
                dir.join("chromedriver.log").display()
            ))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromedriver.display()));
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .build()
            .into();
        let driver = Driver {
            child,
            base: format!("http://127.0.0.1:{port}"),
            agent,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let ready = driver
                .request("GET", "/status", None)
                .is_ok_and(|status| status["value"]["ready"] == true);
            if ready {
                return driver;
            }
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A WebDriver request; the response's JSON, or why it failed.
    fn request(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let url = format!("{}{path}", self.base);
        let response = match (method, body) {
            ("GET", _) => self.agent.get(&url).call(),
            ("DELETE", _) => self.agent.delete(&url).call(),
            (_, body) => self
                .agent
                .post(&url)
                .content_type("application/json")
                .send(body.unwrap_or_else(|| json!({})).to_string()),
        };
        let mut response = response.map_err(|e| format!("{method} {path}: {e}"))?;
        let status = response.status();
        let text = response
            .body_mut()
            .with_config()
            .limit(256 << 20)
            .read_to_string()
            .map_err(|e| format!("{method} {path}: {e}"))?;
        let value: Value =
            serde_json::from_str(&text).map_err(|e| format!("{method} {path}: {e}: {text}"))?;
        if status.is_success() {
            Ok(value)
        } else {
            Err(format!("{method} {path}: {status}: {}", value["value"]))
        }
    }

    /// A headless Chromium session, deleted when dropped.
    fn session(&self, chromium: &Path) -> Session<'_> {
        let capabilities = json!({
            "capabilities": {
                "alwaysMatch": {
                    "goog:chromeOptions": {
                        "binary": chromium,
                        "args": [
                            "--headless=new",
                            "--no-sandbox",
                            "--disable-gpu",
                            "--disable-dev-shm-usage",
                            "--window-size=1280,1000",
                        ],
                    },
                    "goog:loggingPrefs": { "browser": "ALL" },
                }
            }
        });
        let created = self
            .request("POST", "/session", Some(capabilities))
            .unwrap_or_else(|e| panic!("no browser session: {e}"));
        let id = created["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session id in {created}"))
            .to_string();
        Session { driver: self, id }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

impl Session<'_> {
    /// A command of this session (`path` under `/session/{id}/`); its `value`.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}/{path}", self.id);
        let response = self
            .driver
            .request(method, &path, body)
            .unwrap_or_else(|e| panic!("{e}"));
        response["value"].clone()
    }

    /// Opens a file of the report.
    fn open(&self, page: &Path) {
        self.call("POST", "url", Some(json!({ "url": file_url(page) })));
    }

    /// Runs `script` in the page; what it returns.
    fn run(&self, script: &str) -> Value {
        self.call(
            "POST",
            "execute/sync",
            Some(json!({ "script": script, "args": [] })),
        )
    }

    /// The text of each cell of each row of the body of the table `id`.
    fn rows(&self, id: &str) -> Vec<Vec<String>> {
        let rows = self.run(&format!(
            "var t = document.getElementById('{id}'); if (!t) return null; \
             return Array.from(t.tBodies[0].rows).map(function (r) {{ \
             return Array.from(r.cells).map(function (c) {{ return c.textContent.trim(); }}); }});"
        ));
        serde_json::from_value(rows.clone())
            .unwrap_or_else(|_| panic!("no table {id} in the page: {rows}"))
    }

    /// Clicks the heading of column `column` of the table `id`.
    fn sort(&self, id: &str, column: usize) {
        self.run(&format!(
            "document.getElementById('{id}').tHead.rows[0].cells[{column}]\
             .querySelector('button').click(); return null;"
        ));
    }

    /// A screenshot of the window, as PNG.
    fn screenshot(&self) -> Vec<u8> {
        let encoded = self.call("GET", "screenshot", None);
        base64::engine::general_purpose::STANDARD
            .decode(encoded.as_str().expect("a base64 screenshot"))
            .expect("a base64 screenshot")
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = self
            .driver
            .request("DELETE", &format!("/session/{}", self.id), None);
    }
}

/// The `file://` URL of `path`.
fn file_url(path: &Path) -> String {
    let path = path.canonicalize().unwrap();
    let mut url = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        if byte.is_ascii_alphanumeric() || b"/-_.~".contains(&byte) {
            url.push(byte as char);
        } else {
            url.push_str(&format!("%{byte:02X}"));
        }
    }
    url
}
