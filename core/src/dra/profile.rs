//! The shape of the generated device table (aws_devices.rs): its own file so that the table and
//! the code reading it (aws.rs) both point here rather than at each other.

/// A literal attribute value of the generated table.
pub enum A {
    S(&'static str),
    V(&'static str),
    I(i64),
    B(bool),
}

/// One distinct device of the generated table.
pub struct Profile {
    pub attributes: &'static [(&'static str, A)],
    pub capacity: &'static [(&'static str, &'static str)],
}
