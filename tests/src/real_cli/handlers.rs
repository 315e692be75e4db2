//! The handlers a [`RealSpec`] asks for, as async functions any async
//! adapter registers as they are: each records its call in
//! [`RealSpec::calls`] first. Hooks and the MCP server are the conformance
//! suite's ([`crate::handlers`]); the permission handler is this suite's.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use claude_proto::model::permission::PermissionResult;

#[cfg(doc)]
use super::RealSpec;
use super::{Calls, PermissionRule};
use crate::conformance::DropFlag;
use crate::handlers::PermissionFn;

/// The permission handler answering as `rule` says.
pub fn permission(rule: PermissionRule, calls: Calls) -> PermissionFn {
    Arc::new(move |ask| {
        let payload = serde_json::to_value(&ask).expect("a request serializes");
        calls.record("can_use_tool", payload);
        // Captured here, the flag lives exactly as long as the future.
        let flag = match &rule {
            PermissionRule::Pending(probe) => {
                probe.calls.fetch_add(1, Ordering::SeqCst);
                Some(DropFlag(probe.clone()))
            }
            _ => None,
        };
        let rule = rule.clone();
        let answered = matches!(rule, PermissionRule::AnswerQuestions)
            .then(|| crate::real_cli::answer_questions(&ask));
        Box::pin(async move {
            match rule {
                PermissionRule::AnswerQuestions => {
                    Ok(answered.unwrap_or_else(PermissionResult::allow))
                }
                PermissionRule::Allow => Ok(PermissionResult::allow()),
                PermissionRule::AllowWithInput(input) => {
                    Ok(PermissionResult::allow().with_updated_input(input))
                }
                PermissionRule::Deny(message) => Ok(PermissionResult::deny(message)),
                PermissionRule::Pending(_) => {
                    let _flag = flag;
                    std::future::pending::<()>().await;
                    Ok(PermissionResult::deny("unreachable"))
                }
            }
        })
    })
}

/// Registers everything a [`RealSpec`] asks for on an async adapter's
/// builder (its methods are the same in every async adapter); evaluates to
/// the builder.
#[macro_export]
macro_rules! register_real_handlers {
    ($builder:expr, $spec:expr) => {{
        let spec: &$crate::real_cli::RealSpec = $spec;
        let mut builder = $builder;
        if let Some(rule) = spec.permission.clone() {
            let run = $crate::real_cli::handlers::permission(rule, spec.calls.clone());
            builder = builder.on_permission(move |ask| run(ask));
        }
        for hook in &spec.hooks {
            let (event, options, run) = $crate::handlers::hook(hook, spec.calls.clone());
            builder = builder.hook_untyped(event, options, move |input, id| run(input, id));
        }
        if spec.mcp_calc {
            builder = builder.mcp_server($crate::handlers::calc_server(spec.calls.clone()));
        }
        if spec.rmcp_weather {
            let server = $crate::weather::WeatherServer::new(spec.calls.clone());
            let endpoint = claude_proto_rmcp::RmcpEndpoint::new(server)
                .expect("the rmcp server's thread starts");
            builder = builder.mcp_endpoint("weather", endpoint);
        }
        if spec.elicitation {
            use $crate::conformance::Dialogs;
            builder = builder.on_elicitation(async |request| Dialogs::elicit(&request));
        }
        if let Some(request) = spec.initialize.clone() {
            builder = $crate::handlers::Configure::initialize_request(builder, request);
        }
        if let Some(store) = spec.store.clone() {
            builder = $crate::handlers::Configure::session_store(builder, store);
        }
        if let Some(limits) = spec.limits.clone() {
            builder = $crate::handlers::Configure::limits(builder, limits);
        }
        builder
    }};
}
