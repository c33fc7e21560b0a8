//! What the open-NodeClaim scan asks a hostname anti-affinity family (see `Family`): which
//! hostnames a member group surely refuses, so that a pod of an exclusive Job tries only the
//! NodeClaims it may take (`scheduling::exclusive`).

use super::{GroupKind, Topology, Virtual};
use crate::labels::ValueId;

/// A non-inverse hostname anti-affinity member: its family and the value it excludes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostMember {
    pub family: usize,
    pub value: ValueId,
}

impl Topology {
    /// Group `g` as a [`HostMember`], when it is one: a member of a non-inverse family on the
    /// hostname key. Such a group refuses a NodeClaim (one hostname domain) exactly where a pod
    /// of its family with another value counts.
    pub fn host_member(&self, g: usize) -> Option<HostMember> {
        let group = &self.groups[g];
        match group.virt {
            Some(Virtual::Member { family, value })
                if group.def.key == self.hostname && group.def.kind == GroupKind::AntiAffinity && !self.families[family].def.inverse =>
            {
                Some(HostMember { family, value })
            }
            _ => None,
        }
    }

    /// No pod of the family counts at hostname `h` (every member accepts it).
    pub fn family_free_at(&self, family: usize, h: ValueId) -> bool {
        self.families[family].all.get(&h).is_none_or(|&c| c == 0)
    }

    /// The hostnames where pods of the family count and all of them carry `m.value`: with
    /// those where none counts, the only ones member `m` accepts (`next_domain_of`'s
    /// single-domain branch: its count is the family's less its own value's).
    pub fn member_owned_hosts(&self, m: HostMember, out: &mut Vec<ValueId>) {
        out.clear();
        let fam = &self.families[m.family];
        let Some(by) = fam.by.get(&m.value) else { return };
        out.extend(by.iter().filter(|&(h, &c)| c > 0 && fam.all.get(h).copied().unwrap_or(0) == c).map(|(h, _)| *h));
    }
}
