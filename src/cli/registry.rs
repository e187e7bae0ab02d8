//! `berth registry login|logout HOST`: credentials in Helm's registry configuration (`HELM_REGISTRY_CONFIG`,
//! docker's `config.json` format), checked against the registry first, so `helm` uses a login berth made and
//! berth one Helm made.

use super::global_args::{Globals, Personality};
use super::source_args::environment;
use crate::cli::error::{Error, ExitCode};
use berth_source::download::ChartOptions;
use berth_source::http::Credentials;
use berth_source::oci::credentials::{ConfigFile, server_address};
use berth_source::tls::TlsOptions;
use clap::{Args, Subcommand};
use std::io::{BufRead as _, IsTerminal as _, Read as _};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct RegistryArgs {
    #[command(subcommand)]
    pub command: RegistryCommand,
}

#[derive(Debug, Subcommand)]
pub enum RegistryCommand {
    /// Log in to a registry (the credentials are checked, then stored where Helm reads them).
    Login(LoginArgs),
    /// Remove a registry's stored credentials.
    Logout(LogoutArgs),
}

#[derive(Debug, Args)]
pub struct LoginArgs {
    pub host: String,
    /// Helm's `registry login` reads its first argument and ignores any after it (`require.MinimumNArgs(1)`).
    #[arg(hide = true)]
    pub ignored: Vec<String>,
    #[arg(short, long)]
    pub username: Option<String>,
    /// The password or identity token (`--password-stdin` keeps it out of the process list).
    #[arg(short, long)]
    pub password: Option<String>,
    #[arg(long)]
    pub password_stdin: bool,
    /// Do not verify the registry's certificate.
    #[arg(long)]
    pub insecure: bool,
    #[arg(long, value_name = "FILE")]
    pub cert_file: Option<PathBuf>,
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
    #[arg(long, value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
    #[arg(long)]
    pub plain_http: bool,
}

#[derive(Debug, Args)]
pub struct LogoutArgs {
    pub host: String,
    /// Helm's `registry logout` reads its first argument and ignores any after it (`require.MinimumNArgs(1)`).
    #[arg(hide = true)]
    pub ignored: Vec<String>,
}

pub fn run(args: RegistryArgs, globals: &Globals) -> Result<ExitCode, Error> {
    match args.command {
        RegistryCommand::Login(login) => super::runtime::runtime()?.block_on(run_login(login, globals)),
        RegistryCommand::Logout(logout) => run_logout(&logout, globals),
    }
}

async fn run_login(args: LoginArgs, globals: &Globals) -> Result<ExitCode, Error> {
    if args.host.split('/').next().is_some_and(|host| host.contains('@')) {
        // `user:password@host`: refused without repeating it (logs included).
        return Err(Error::Usage(
            "the registry host holds credentials; pass them with --username and --password-stdin".to_string(),
        ));
    }
    let what = format!("cannot log in to {}", berth_source::redact::urls(&args.host));
    let mut username = args.username.clone().unwrap_or_default();
    let mut password = args.password.clone().unwrap_or_default();
    if args.password_stdin {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|error| Error::Usage(format!("reading the password: {error}")))?;
        let line = text.strip_suffix('\n').unwrap_or(&text);
        password = line.strip_suffix('\r').unwrap_or(line).to_string();
    } else if password.is_empty() && globals.personality == Personality::Helm {
        (username, password) = prompted(username)?;
    } else if password.is_empty() {
        return Err(Error::Usage("a password or token is needed: pass --password-stdin (or --password)".to_string()));
    } else {
        super::release_output::warn(globals, "using --password via the CLI is insecure. Use --password-stdin");
    }
    let host = args.host.split('/').next().unwrap_or(&args.host).to_string();
    if args.host.contains('/') {
        // Helm's `warnIfHostHasPath` (pkg/registry/client.go).
        let message = "registry login currently only supports registry hostname, not a repository path";
        let attributes = [("host", args.host.as_str()), ("suggested", host.as_str())];
        super::release_output::warn_with(globals, message, &attributes);
        // Helm then refuses it all the same (oras-go's `Reference.ValidateRegistry`); berth logs in to the host.
        if globals.personality == Personality::Helm {
            let reason = format!("invalid reference: invalid registry {}", berth_go::strconv::quote(&args.host));
            return Err(Error::Usage(reason));
        }
    }
    let credentials = Credentials { username, password };
    let options = ChartOptions {
        credentials: credentials.clone(),
        plain_http: args.plain_http,
        tls: TlsOptions {
            ca_file: args.ca_file.clone(),
            cert_file: args.cert_file.clone(),
            key_file: args.key_file.clone(),
            insecure_skip_verify: args.insecure,
        },
        ..ChartOptions::default()
    };
    let env = environment(&globals.environment);
    let registry = env.registry(&host, &options).map_err(|error| Error::from_source(what.clone(), error))?;
    registry.ping().await.map_err(|error| {
        let error =
            berth_source::SourceError::Authenticating { host: args.host.clone(), source: Box::new(error.into()) };
        Error::from_source(what.clone(), error)
    })?;
    let mut config = ConfigFile::load(&env.paths.registry_config)
        .map_err(|reason| Error::from_source(what.clone(), berth_source::SourceError::Other(reason)))?;
    config
        .put(&server_address(&args.host), &credentials)
        .map_err(|reason| Error::from_source(what, berth_source::SourceError::Other(reason)))?;
    eprintln!("Login Succeeded");
    Ok(ExitCode::Success)
}

/// As `helm`, the credentials Helm's `getUsernamePassword` asks for on the terminal when no password is given:
/// `Username: ` (read from stdin) unless `--username`, then `Password: `, or `Token: ` for an empty username, read
/// with the echo off. A line that cannot be read fails as in Helm (`EOF`; a stdin that is no terminal cannot hide a
/// password: `inappropriate ioctl for device`, Go's text for the `ENOTTY` its `term.SaveState` gets).
fn prompted(username: String) -> Result<(String, String), Error> {
    let username = if username.is_empty() { read_line("Username: ")?.trim().to_string() } else { username };
    let (prompt, refusal) =
        if username.is_empty() { ("Token: ", "token required") } else { ("Password: ", "password required") };
    super::output::print_stdout(prompt)?;
    let password = hidden_line()?;
    if password.is_empty() {
        return Err(Error::Usage(refusal.to_string()));
    }
    Ok((username, password))
}

/// A line read from the terminal on stdin with the echo off (Go's `term.ReadPassword`): a stdin that is no
/// terminal fails as in Helm, `inappropriate ioctl for device` (Go's text for the `ENOTTY` it gets).
///
/// # Errors
/// [`Error::Usage`] with the reason.
pub fn hidden_line() -> Result<String, Error> {
    let no_terminal = || Error::Usage("inappropriate ioctl for device".to_string());
    if !std::io::stdin().is_terminal() {
        return Err(no_terminal());
    }
    let terminal = [console::Term::stdout(), console::Term::stderr()].into_iter().find(console::Term::is_term);
    let terminal = terminal.ok_or_else(no_terminal)?;
    terminal.read_secure_line().map_err(|error| Error::Usage(berth_source::io_text(&error)))
}

/// `prompt` on stdout, then a line of stdin without its line ending (Go's `bufio.Reader.ReadLine`).
fn read_line(prompt: &str) -> Result<String, Error> {
    super::output::print_stdout(prompt)?;
    let mut line = String::new();
    let read =
        std::io::stdin().lock().read_line(&mut line).map_err(|error| Error::Usage(berth_source::io_text(&error)))?;
    if read == 0 {
        return Err(Error::Usage("EOF".to_string()));
    }
    let line = line.strip_suffix('\n').unwrap_or(&line);
    Ok(line.strip_suffix('\r').unwrap_or(line).to_string())
}

fn run_logout(args: &LogoutArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let what = format!("cannot log out of {}", args.host);
    let env = environment(&globals.environment);
    let mut config = ConfigFile::load(&env.paths.registry_config)
        .map_err(|reason| Error::from_source(what.clone(), berth_source::SourceError::Other(reason)))?;
    config
        .delete(&server_address(&args.host))
        .map_err(|reason| Error::from_source(what, berth_source::SourceError::Other(reason)))?;
    eprintln!("Removing login credentials for {}", args.host);
    Ok(ExitCode::Success)
}
