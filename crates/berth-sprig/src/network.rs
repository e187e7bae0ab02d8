//! Sprig's `getHostByName`: Helm 4 binds it to a function that returns "" unless DNS lookups are enabled
//! (`--enable-dns`), which berth does not offer; so it always returns "".

use crate::args::SprigFn;
use crate::args::{fixed, string};
use berth_go::Result;
use berth_go::Value;

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[("getHostByName", get_host_by_name)];

fn get_host_by_name(args: &[Value]) -> Result<Value> {
    let [name] = fixed("getHostByName", args)?;
    string(name)?;
    Ok(Value::from(""))
}
