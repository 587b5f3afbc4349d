//! The `rmcp` handler of one MCP session (or of one stateless request): what it lists,
//! and which call becomes which turn.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::session::Handler;
use super::turn;

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        self.tool.info()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let actions = self.actions();
        Ok(ListToolsResult::with_all_items(self.tool.list(&actions)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        turn::call(self, request, context).await.map(Into::into)
    }
}
