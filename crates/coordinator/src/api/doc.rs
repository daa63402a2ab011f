//! The OpenAPI document (`GET /api/openapi.json`). It is not written by
//! hand: each handler carries a `#[utoipa::path]` annotation, every route
//! is registered with `utoipa_axum::routes!`, which routes the handler and
//! adds its annotation to the document in one step, and the response types
//! derive their schemas. The names of job kinds, states, resource classes
//! and tables come from the vocabulary (`JobKind::ALL`, `JobStatus::ALL`,
//! ...), so the document lists what the server accepts.

use std::borrow::Cow;
use std::sync::LazyLock;

use axum::http::header;
use axum::response::IntoResponse;
use jobs::{JobKind, Needs, Resource};
use schema::reports::Table;
use schema::JobStatus;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{Modify, OpenApi, PartialSchema, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

/// The document's root: title, version and description from Cargo, the
/// bearer scheme, and the tags the handlers use.
#[derive(OpenApi)]
#[openapi(
    info(title = "hfarm status API", description = "The status server of `hfarm serve`: experiments, jobs, workers, \
        the dashboard's data and metrics. Reads are open; mutations need `Authorization: Bearer <HFARM_API_TOKEN>`. \
        Every error answers `{\"error\": \"...\"}`."),
    modifiers(&BearerToken),
    // The vocabulary, which parameters refer to (responses register what they use).
    components(schemas(JobStatusDoc, JobKindDoc, ResourceDoc, NeedsDoc, TableDoc, StatusCountsDoc)),
    tags(
        (name = "experiments", description = "Experiments and their progress"),
        (name = "jobs", description = "Jobs; retry and cancel"),
        (name = "workers", description = "Workers and what they run"),
        (name = "dashboard", description = "The web dashboard and the data it reads"),
        (name = "meta", description = "Health, metrics, this document"),
    )
)]
pub struct ApiDoc;

/// The security scheme that mutations name (`security(("bearer" = []))`).
struct BearerToken;

impl Modify for BearerToken {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme("bearer", SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)));
    }
}

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(openapi_json))
}

/// The document as served: built once, from the same routes the server runs.
static DOCUMENT: LazyLock<String> =
    LazyLock::new(|| super::openapi().to_json().expect("the OpenAPI document serializes"));

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta",
    responses((status = 200, description = "The OpenAPI 3.1 document of this API", body = Object)))]
async fn openapi_json() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], DOCUMENT.as_str())
}

/// A string schema with the given names as its values.
fn names<V: Into<serde_json::Value>>(description: &str, values: impl IntoIterator<Item = V>) -> RefOr<Schema> {
    ObjectBuilder::new().schema_type(Type::String).description(Some(description)).enum_values(Some(values)).into()
}

/// Declares a schema-only type for a vocabulary type of another crate, so
/// that fields of that type can say `#[schema(value_type = ...)]`.
macro_rules! vocabulary_schema {
    ($doc:ident, $name:literal, $schema:expr) => {
        pub struct $doc;
        impl PartialSchema for $doc {
            fn schema() -> RefOr<Schema> {
                $schema
            }
        }
        impl ToSchema for $doc {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed($name)
            }
        }
    };
}

vocabulary_schema!(
    JobStatusDoc,
    "JobStatus",
    names("Where a job is in its life (`schema::JobStatus`)", JobStatus::ALL.map(JobStatus::as_str))
);
vocabulary_schema!(JobKindDoc, "JobKind", names("A job kind (`jobs::JobKind`)", JobKind::ALL.map(JobKind::as_str)));
vocabulary_schema!(
    ResourceDoc,
    "Resource",
    names("A resource class: a job kind's queue (`jobs::Resource`)", Resource::ALL.map(Resource::as_str))
);
vocabulary_schema!(
    NeedsDoc,
    "Needs",
    names(
        "Which inputs a job kind cannot run without (`jobs::Needs`)",
        [Needs::All, Needs::First, Needs::Any].map(|n| serde_json::to_value(n).expect("names serialize")),
    )
);
vocabulary_schema!(
    TableDoc,
    "Table",
    names("A result table (`schema::reports::Table`)", Table::ALL.map(Table::as_str))
);
vocabulary_schema!(StatusCountsDoc, "StatusCounts", {
    let mut counts = ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some("Number of jobs in each state, every state present (`schema::StatusCounts`)"));
    for s in JobStatus::ALL {
        counts = counts.property(s.as_str(), ObjectBuilder::new().schema_type(Type::Integer)).required(s.as_str());
    }
    counts.into()
});

/// Jobs per kind and state: a `StatusCounts` for each kind that has jobs.
pub struct ByKindDoc;

impl PartialSchema for ByKindDoc {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some("Per job kind (JobKind), the counts of its jobs in each state"))
            .additional_properties(Some(RefOr::Ref(Ref::from_schema_name(StatusCountsDoc::name()))))
            .into()
    }
}

impl ToSchema for ByKindDoc {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("ByKind")
    }

    fn schemas(out: &mut Vec<(String, RefOr<Schema>)>) {
        out.push((StatusCountsDoc::name().into(), StatusCountsDoc::schema()));
    }
}
