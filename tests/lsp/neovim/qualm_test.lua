-- Drives qualm's language server from Neovim's built-in LSP client, headless.
-- Run by tests/lsp/test_neovim.py: nvim --headless -u NONE -c "luafile qualm_test.lua"
-- with QUALM_PYTHON, QUALM_FILE and QUALM_OUT in the environment; writes its findings as JSON.
local out = { statuses = {} }
-- every bound scales with QUALM_TEST_TIME_FACTOR, as tests/timing.py's do (tests/lsp/test_neovim.py passes it on)
local factor = tonumber(os.getenv("QUALM_TEST_TIME_FACTOR") or "") or 1
local function ms(normal) return math.floor(normal * factor) end
local function finish()
  local f = io.open(os.getenv("QUALM_OUT"), "w")
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd("qa!")
end

local ok, err = pcall(function()
  local ready = false
  local client_id = vim.lsp.start_client({
    name = "qualm",
    cmd = { os.getenv("QUALM_PYTHON"), "-m", "qualm", "serve" },
    root_dir = vim.fn.fnamemodify(os.getenv("QUALM_FILE"), ":h"),
    init_options = { qualm = { editor = { diagnostic_level = "low" } } },
    handlers = {
      ["qualm/status"] = function(_, result)
        table.insert(out.statuses, result.state)
        if result.state == "ready" then ready = true end
      end,
    },
  })
  vim.cmd("edit " .. os.getenv("QUALM_FILE"))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)
  out.ready = vim.wait(ms(120000), function() return ready end, 50)
  local client = vim.lsp.get_client_by_id(client_id)
  local uri = vim.uri_from_bufnr(bufnr)

  local lenses = client.request_sync("textDocument/codeLens", { textDocument = { uri = uri } }, ms(20000), bufnr)
  out.lenses = {}
  for _, lens in ipairs(lenses.result or {}) do
    local resolved = client.request_sync("codeLens/resolve", lens, ms(20000), bufnr)
    table.insert(out.lenses, { line = lens.range.start.line, title = resolved.result.command.title })
  end

  local scored = client.request_sync("workspace/executeCommand", { command = "qualm.scoreDocument", arguments = { uri } }, 300000, bufnr)
  out.scored = scored.result
  vim.wait(ms(20000), function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  local diags = vim.diagnostic.get(bufnr)
  out.diagnostics = #diags
  if #diags > 0 then
    out.first_source = diags[1].source
    local hover = client.request_sync("textDocument/hover", {
      textDocument = { uri = uri },
      position = { line = diags[1].lnum, character = diags[1].col },
    }, ms(20000), bufnr)
    out.hover = hover.result and hover.result.contents.value or nil

    -- Acting on the doubt as any LSP client does: the code actions at the token, one picked,
    -- resolved into an edit (the model runs then) and applied by Neovim's own code.
    local at = { line = diags[1].lnum, character = diags[1].col }
    local actions = client.request_sync("textDocument/codeAction", {
      textDocument = { uri = uri },
      range = { start = at, ["end"] = at },
      context = { diagnostics = {} },
    }, ms(20000), bufnr)
    out.actions = {}
    for _, a in ipairs(actions.result or {}) do table.insert(out.actions, a.title) end
    local picked = (actions.result or {})[1]
    if picked then
      out.picked = picked.title
      out.picked_has_edit = picked.edit ~= nil
      local before = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
      local resolved = client.request_sync("codeAction/resolve", picked, 300000, bufnr)
      out.resolved_error = resolved.err and resolved.err.message or nil
      if resolved.result and resolved.result.edit then
        local republished = false
        local handler = vim.lsp.handlers["textDocument/publishDiagnostics"]
        vim.lsp.handlers["textDocument/publishDiagnostics"] = function(e, r, ctx, c)
          republished = true
          return handler(e, r, ctx, c)
        end
        vim.lsp.util.apply_workspace_edit(resolved.result.edit, client.offset_encoding)
        out.rewritten = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") ~= before
        out.republished = vim.wait(ms(20000), function() return republished end, 50)
        out.diagnostics_after = #vim.diagnostic.get(bufnr)
      end
    end
  end
  client.stop()
end)
if not ok then out.error = tostring(err) end
finish()
