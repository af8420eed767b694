//! The block cache: least-recently-used data blocks up to a capacity in bytes (RocksDB's
//! `LRUCache`, one shard: the 64 shards of RocksDB's default only change which block is
//! evicted when the cache is nearly full). Keys are (table number, block index).

use rustc_hash::FxHashMap;

const NIL: u32 = u32::MAX;

struct Node {
    key: u64,
    charge: u64,
    prev: u32,
    next: u32,
}

pub struct BlockCache {
    capacity: u64,
    used: u64,
    map: FxHashMap<u64, u32>,
    nodes: Vec<Node>,
    free: Vec<u32>,
    /// Most recently used.
    head: u32,
    tail: u32,
    pub hits: u64,
    pub misses: u64,
}

/// A block's cache key.
pub fn block_key(table: u64, block: usize) -> u64 {
    (table << 24) ^ block as u64
}

impl BlockCache {
    pub fn new(capacity: u64) -> Self {
        BlockCache {
            capacity,
            used: 0,
            map: FxHashMap::default(),
            nodes: Vec::new(),
            free: Vec::new(),
            head: NIL,
            tail: NIL,
            hits: 0,
            misses: 0,
        }
    }

    pub fn used(&self) -> u64 {
        self.used
    }

    fn unlink(&mut self, i: u32) {
        let (p, n) = (self.nodes[i as usize].prev, self.nodes[i as usize].next);
        if p != NIL {
            self.nodes[p as usize].next = n;
        } else {
            self.head = n;
        }
        if n != NIL {
            self.nodes[n as usize].prev = p;
        } else {
            self.tail = p;
        }
    }

    fn push_front(&mut self, i: u32) {
        self.nodes[i as usize].prev = NIL;
        self.nodes[i as usize].next = self.head;
        if self.head != NIL {
            self.nodes[self.head as usize].prev = i;
        }
        self.head = i;
        if self.tail == NIL {
            self.tail = i;
        }
    }

    /// Looks a block up; a hit makes it the most recent.
    pub fn lookup(&mut self, key: u64) -> bool {
        match self.map.get(&key) {
            Some(&i) => {
                self.unlink(i);
                self.push_front(i);
                self.hits += 1;
                true
            }
            None => {
                self.misses += 1;
                false
            }
        }
    }

    /// Inserts a block read from a file, evicting the least recent ones to make room.
    pub fn insert(&mut self, key: u64, charge: u64) {
        if self.capacity == 0 || charge > self.capacity || self.map.contains_key(&key) {
            return;
        }
        while self.used + charge > self.capacity && self.tail != NIL {
            let t = self.tail;
            self.unlink(t);
            let node = &self.nodes[t as usize];
            self.used -= node.charge;
            self.map.remove(&node.key);
            self.free.push(t);
        }
        let node = Node {
            key,
            charge,
            prev: NIL,
            next: NIL,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        self.map.insert(key, i);
        self.push_front(i);
        self.used += charge;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_the_least_recently_used() {
        let mut c = BlockCache::new(3 * 4096);
        for k in 0..3 {
            c.insert(k, 4096);
        }
        assert!(c.lookup(0));
        c.insert(3, 4096);
        assert!(!c.lookup(1), "1 was the least recent");
        assert!(c.lookup(0) && c.lookup(2) && c.lookup(3));
        assert_eq!(c.used(), 3 * 4096);
    }
}
