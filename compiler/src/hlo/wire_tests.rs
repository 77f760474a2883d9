//! Wire compatibility of proto/*.proto with the upstream schemas.
