//! Object and thread identities of an execution, and the view of it the operation builders of
//! [`Control::point`] get ([`ExecView`]): accesses, their locations and variables, allocations.

use super::*;

/// Sets the keys of [`Exec::young`] apart from object ids (which stay below 2^32).
const YOUNG_KEY: u64 = 1 << 40;

/// At most this many plain and `java.util.concurrent` objects are recorded per execution: each
/// is a JVMTI tag the JVM keeps (and a garbage collection visits) and an entry here. Later ones
/// keep the JVM's hash; the limit falls at the same allocation in a replay.
const YOUNG_LIMIT: usize = 1 << 12;

impl Control {
    // ---- object identities -----------------------------------------------------------------

    /// The object's id in the current execution (tags carry the epoch so that ids restart at 1
    /// in every execution, as they do in a fresh JVM).
    pub(super) fn obj_id(&self, ex: &mut Exec, obj: jobject) -> ObjId {
        if obj.is_null() {
            return ObjId(0);
        }
        if let Some(id) = self.tagged_id(ex.epoch, obj) {
            if id & PROVISIONAL_ID == 0 {
                return ObjId(id);
            }
            // Known so far only by a provisional id: it gets its id now, in the order of the
            // execution's scheduling points.
            ex.next_obj += 1;
            let fresh = ex.next_obj;
            ex.confinement.renamed(id, fresh);
            if let Some(key) = ex.young.remove(&id) {
                ex.young.insert(fresh, key);
            }
            let _ = self
                .jvmti
                .set_tag(obj, ((ex.epoch as i64) << 32) | fresh as i64);
            return ObjId(fresh);
        }
        ex.next_obj += 1;
        let id = ex.next_obj;
        let _ = self
            .jvmti
            .set_tag(obj, ((ex.epoch as i64) << 32) | id as i64);
        ObjId(id)
    }

    /// `obj`'s id in the current execution, or a provisional one ([`PROVISIONAL_ID`]) when no
    /// scheduling point has met it yet: for records that must not take a number from the
    /// execution's counter (which would shift the program's object ids between runs).
    pub(super) fn known_id(&self, ex: &mut Exec, obj: jobject) -> u64 {
        if let Some(id) = self.tagged_id(ex.epoch, obj) {
            return id;
        }
        ex.next_confinement_id += 1;
        let id = PROVISIONAL_ID | ex.next_confinement_id;
        let _ = self
            .jvmti
            .set_tag(obj, ((ex.epoch as i64) << 32) | id as i64);
        id
    }

    /// The id `obj`'s tag gives it in execution `epoch` (none: untagged in this execution).
    pub(super) fn tagged_id(&self, epoch: u32, obj: jobject) -> Option<u64> {
        let tag = self.jvmti.get_tag(obj).unwrap_or(0);
        (tag != 0 && (tag >> 32) as u32 == epoch).then_some((tag & 0xffff_ffff) as u64)
    }

    /// The class names of execution `epoch`'s objects `ids` that are still alive, by id.
    pub(super) fn classes(&self, epoch: u32, ids: &[u64]) -> IdMap<u64, String> {
        let tags: Vec<i64> = ids
            .iter()
            .map(|&id| ((epoch as i64) << 32) | id as i64)
            .collect();
        self.jvmti
            .classes_of_tags(crate::ffi::current_env(), &tags)
            .into_iter()
            .map(|(tag, class)| ((tag & 0xffff_ffff) as u64, class))
            .collect()
    }

    /// A compare-and-set whose write was announced at `site` failed: that write wrote
    /// nothing, which the model's fairness hears (a spin lock's waiter spins). Not a scheduling
    /// point; nothing when the write was no point (the object was used alone).
    pub fn cas_failed(&self, site: SiteId) {
        let Some((epoch, me)) = current() else { return };
        let mut st = self.lock();
        if !live(&st, epoch) {
            return;
        }
        st.model.cas_failed(me, site);
    }

    pub(super) fn thread_of(&self, ex: &mut Exec, thread: jobject) -> Option<ThreadId> {
        let id = self.obj_id(ex, thread);
        ex.thread_of.get(&id.0).copied()
    }
}

/// The current execution, as the operation builders of [`Control::point`] see it.
pub struct ExecView<'a> {
    pub(super) ex: &'a mut Exec,
    pub(super) sites: &'a IdMap<i64, SiteInfo>,
    /// The model's events so far.
    pub(super) events: &'a [scheduler::Event],
    pub me: ThreadId,
}

impl ExecView<'_> {
    pub fn obj(&mut self, control: &Control, obj: jobject) -> ObjId {
        control.obj_id(self.ex, obj)
    }

    /// Whether only this thread has touched (`write`: writes) `obj` at a confinement-checked
    /// site so far (confinement.rs); statics (null) never are.
    pub fn confined(&mut self, control: &Control, obj: jobject, write: bool, site: SiteId) -> bool {
        if obj.is_null() || control.options.load.collections_unconfined {
            return false;
        }
        // Not `obj_id`: the objects met here include the JDK's own (its first-time work in a
        // JVM), and giving them ids from the execution's counter would shift the ids of the
        // program's objects between the search and a replay.
        let ex = &mut *self.ex;
        let id = control.known_id(ex, obj);
        // What the program's static initializers do is published to every thread by the
        // class-initialization lock, and is never preempted: no use alone there is a blind
        // spot, as if no thread had been running.
        let started = if control.running_program_init() {
            0
        } else {
            u32::try_from(ex.threads.len()).unwrap_or(u32::MAX)
        };
        let shared = ex
            .confinement
            .touch(id, self.me, started, self.events.len(), (write, site));
        if control.options.trace {
            // A use alone matters to a trace only if another thread could take the object
            // over: not while the thread is the only one.
            if !shared && started > 1 && crate::juc::is_jdk_site(site) && ex.may_walk_for_caller() {
                if let Some((method, at)) = crate::juc::program_caller(control.jvmti, site) {
                    ex.alone_callers.insert((id, write), (method as usize, at));
                }
            } else if ex.confinement.handed_over().is_some() {
                // The touch that shares it: its first thread's frames go with the hand-over.
                ex.handed_callers = [true, false].map(|w| ex.alone_callers.remove(&(id, w)));
            }
        }
        !shared
    }

    /// Whether `site` is a lock's or a semaphore's acquisition (`SiteInfo::acquires`) made
    /// while another thread has started: a scheduling point even when the lock was used alone.
    pub fn acquires_among_others(&self, site: SiteId) -> bool {
        self.ex.threads.len() > 1 && self.sites.get(&site).is_some_and(|i| i.acquires)
    }

    /// After [`ExecView::confined`] said no to a synchronizer's access (of `obj`, at `loc`):
    /// when that access shared the object, remembers where its first thread last wrote it
    /// alone and last read it alone after that, each at its own site, so that the trace
    /// shows the hand-over and the check before it (`Exec::handovers`).
    pub fn note_handover(&mut self, control: &Control, obj: jobject, loc: Loc) {
        let Some(h) = self.ex.confinement.handed_over() else {
            return;
        };
        if h.read.is_some() {
            self.ex.unseen_reads.push((h.first, loc));
        }
        let id = control.obj_id(self.ex, obj);
        let [wrote_at, read_at] = std::mem::take(&mut self.ex.handed_callers);
        let uses = [(h.wrote, true, wrote_at), (h.read, false, read_at)];
        for ((at, site), wrote, caller) in uses.into_iter().filter_map(|(u, w, c)| Some((u?, w, c)))
        {
            self.ex.handovers.push(Handover {
                caller,
                at,
                first: h.first,
                to: self.me,
                obj: id,
                loc,
                site,
                wrote,
            });
        }
    }

    /// After [`ExecView::confined`] said no: counts a use alone the access may have missed
    /// ([`crate::confinement::Confinement::settle`]) if `program` says the access is the
    /// program's own call of the collection and that use does not happen before it.
    pub fn settle_confinement(&mut self, program: impl FnOnce() -> bool) {
        let (events, me) = (self.events, self.me);
        let handovers = &self.ex.handovers;
        self.ex.confinement.settle(|m| {
            // A synchronizer the first thread wrote alone after that use and this thread then
            // took (a future's result, a lock) orders the use before this access, although the
            // model's events do not show it.
            let handed = || {
                handovers
                    .iter()
                    .any(|h| h.wrote && h.first == m.first && h.to == me && h.at >= m.events)
            };
            program()
                && !scheduler::hb::stretch_happens_before(events, m.first, m.events, me)
                && !handed()
        });
    }

    /// The application thread of `thread` in this execution, if it is one.
    pub fn thread(&mut self, control: &Control, thread: jobject) -> Option<ThreadId> {
        control.thread_of(self.ex, thread)
    }

    /// The location and variable of a field access (`obj` null for a static) or of an array
    /// element (`index >= 0`). The variable is [`crate::naming::UNTRACKED`] when the class path
    /// was instrumented for a variable set and the object or static is not in it: then the
    /// access is no scheduling point.
    pub fn access(
        &mut self,
        control: &Control,
        obj: jobject,
        index: i32,
        site: SiteId,
    ) -> (Loc, VarId) {
        let info = self.sites.get(&site).copied();
        if index >= 0 {
            let id = control.obj_id(self.ex, obj);
            let var = self.alloc_var(control, id, obj);
            let loc = Loc(mix(id.0, index as u64 | 1 << 40));
            self.traced(control, loc, id.0, index);
            return (loc, var);
        }
        let field = info.map_or(site as u64, |i| i.field);
        if obj.is_null() {
            let is_static = info.is_some_and(|i| i.is_static);
            let var = if is_static && !self.ex.names.static_tracked(field) {
                crate::naming::UNTRACKED
            } else {
                crate::naming::static_var(field)
            };
            let loc = Loc(mix(0, field));
            self.traced(control, loc, 0, -1);
            return (loc, var);
        }
        self.field_access(control, obj, field)
    }

    /// Remembers what `loc` is, with `trace=on`.
    fn traced(&mut self, control: &Control, loc: Loc, obj: u64, index: i32) {
        if control.options.trace {
            self.ex.locs.insert(loc.0, (obj, index));
        }
    }

    /// The location and variable of an access to the field with key `field`
    /// ([`crate::sites::field_key`]) of `obj` (null: a static field), for accesses whose field
    /// is known only at run time (VarHandles, field updaters, Unsafe). A static reached this way
    /// stays a point whatever the tracked set (its key may name the field through another
    /// class than the analysis does).
    pub fn field_access(&mut self, control: &Control, obj: jobject, field: u64) -> (Loc, VarId) {
        if obj.is_null() {
            let loc = Loc(mix(0, field));
            self.traced(control, loc, 0, -1);
            return (loc, crate::naming::static_var(field));
        }
        let id = control.obj_id(self.ex, obj);
        let var = self.alloc_var(control, id, obj);
        let loc = Loc(mix(id.0, field));
        self.traced(control, loc, id.0, -1);
        (loc, var)
    }

    fn alloc_var(&mut self, control: &Control, id: ObjId, obj: jobject) -> VarId {
        self.ex.names.var_of(control.jvmti, id.0, obj)
    }

    /// Records that the program made `obj` in this execution when it is a plain object or a
    /// `java.util.concurrent` one (the site says, `sites::makes_jdk_object`): its class's
    /// loader cannot tell, and its identity hash is pinned only if it is the execution's own
    /// (pinned.rs). The key is the order of such allocations, as the schedule makes them.
    fn young(&mut self, control: &Control, obj: jobject, site: SiteId) {
        if obj.is_null()
            || self.ex.young.len() >= YOUNG_LIMIT
            || !self.sites.get(&site).is_some_and(|i| i.jdk_alloc)
        {
            return;
        }
        let id = control.known_id(self.ex, obj);
        let key = YOUNG_KEY | (self.ex.young.len() as u64 + 1);
        self.ex.young.entry(id).or_insert(key);
    }

    pub fn allocated(&mut self, control: &Control, obj: jobject, site: SiteId) {
        let id = control.obj_id(self.ex, obj);
        let by_name = control.options.l.is_some();
        self.ex
            .names
            .allocated(control.jvmti, id.0, site, self.me, by_name);
    }
}

impl Control {
    /// Records the allocation site of `obj` (not a scheduling point) where variables need it:
    /// a strategy that bounds them, the loop-iteration names, or a tracked table (whether an
    /// access is a point). A plain or `java.util.concurrent` object is recorded as the
    /// execution's own ([`ExecView::young`]).
    pub fn allocated(&self, obj: jobject, site: SiteId) {
        // A strategy that never switches at an access needs no names, tracked or not.
        let traits = self.strategy_traits;
        let needed = traits.bounds_variables
            || self.options.l.is_some()
            || (crate::naming::table().is_some() && traits.switches_at_accesses);
        self.with_view(|c, view| {
            if needed {
                view.allocated(c, obj, site);
            }
            view.young(c, obj, site);
        });
    }
}

impl Control {
    /// Runs `f` on the current execution, for the current application thread.
    pub fn with_view(&self, f: impl FnOnce(&Control, &mut ExecView<'_>)) {
        let Some((epoch, me)) = current() else {
            return;
        };
        let mut st = self.lock();
        if !live(&st, epoch) {
            return;
        }
        let State {
            exec, sites, model, ..
        } = &mut *st;
        let mut view = ExecView {
            ex: exec.as_mut().unwrap(),
            sites,
            events: model.events().as_slice(),
            me,
        };
        f(self, &mut view);
    }
}
