//! Per-token rate limits: a token bucket per author in memory. A request
//! over the limit is answered 429 `rate_limited` with `Retry-After` before
//! its body is read or any core work is done. Buckets live as long as the
//! server; there is one per author, so memory is bounded by the authors.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use colmena_core::AppError;

/// Buckets kept before the full ones (idle authors) are dropped.
const PRUNE_AT: usize = 4096;

pub(crate) struct RateLimiter {
    per_second: f64,
    burst: f64,
    buckets: Mutex<HashMap<String, Bucket>>,
}

struct Bucket {
    tokens: f64,
    at: Instant,
}

impl RateLimiter {
    /// `per_second` sustained, `burst` at once; `per_second <= 0` is no limit.
    pub(crate) fn new(per_second: f64, burst: u32) -> RateLimiter {
        RateLimiter {
            per_second,
            burst: f64::from(burst.max(1)),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from `key`'s bucket, or says how long to wait.
    pub(crate) fn check(&self, key: &str) -> Result<(), AppError> {
        if self.per_second <= 0.0 || !self.per_second.is_finite() {
            return Ok(());
        }
        let now = Instant::now();
        let Ok(mut buckets) = self.buckets.lock() else {
            // A poisoned map only loses limits, never serves a request twice.
            return Ok(());
        };
        if buckets.len() >= PRUNE_AT {
            let (rate, burst) = (self.per_second, self.burst);
            buckets.retain(|_, b| b.tokens + rate * (now - b.at).as_secs_f64() < burst);
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket {
            tokens: self.burst,
            at: now,
        });
        let refill = self.per_second * (now - bucket.at).as_secs_f64();
        bucket.tokens = (bucket.tokens + refill).min(self.burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        let wait = ((1.0 - bucket.tokens) / self.per_second).ceil();
        // Whole seconds, at least one; the float is small and positive.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let wait = wait.clamp(1.0, 3600.0) as u64;
        Err(AppError::rate_limited(
            "rate_limit",
            wait,
            format!("too many requests with this token; try again in {wait} s"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_the_rate_holds_and_says_when_to_retry() {
        let limiter = RateLimiter::new(1.0, 3);
        for _ in 0..3 {
            assert!(limiter.check("ana").is_ok());
        }
        let refused = limiter.check("ana").err();
        assert_eq!(
            refused.as_ref().and_then(AppError::retry_after_seconds),
            Some(1)
        );
        // Another token has its own bucket.
        assert!(limiter.check("beto").is_ok());
        // No limit at all when the rate is 0.
        let off = RateLimiter::new(0.0, 1);
        assert!((0..1000).all(|_| off.check("ana").is_ok()));
    }
}
