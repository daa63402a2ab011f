//! A binary older than its database's schema refuses it with a message
//! that says so (a farm mid-upgrade), instead of sqlx's bare "previously
//! applied but missing".

use schema::testing::TestDatabase;
use schema::DbError;

#[tokio::test]
async fn a_database_migrated_by_a_newer_build_is_refused_by_name() {
    let db = TestDatabase::create().await;
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
         VALUES (99999, 'from a newer hfarm', true, '\\x00', 0)",
    )
    .execute(&db.pool)
    .await
    .unwrap();
    let e = schema::connect(&db.url).await.unwrap_err();
    assert!(matches!(e, DbError::NewerSchema(99999, known) if known > 0 && known < 99999), "{e:?}");
    assert!(e.to_string().contains("migrated by a newer hfarm"), "{e}");
    // What this build knows still connects.
    sqlx::query("DELETE FROM _sqlx_migrations WHERE version = 99999").execute(&db.pool).await.unwrap();
    schema::connect(&db.url).await.unwrap();
}
